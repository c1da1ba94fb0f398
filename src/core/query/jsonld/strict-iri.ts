/**
 * Compact IRIs in a JSON-LD query must use a defined prefix (as SPARQL's grammar demands): a
 * `prefix:suffix` string whose prefix is neither a term of the context nor a URI scheme in use
 * is a 400 naming the prefix, where JSON-LD alone would read it as an absolute IRI of scheme
 * `prefix` and the query would silently match nothing.
 */
import { badRequest } from '../../errors.js';
import { ActiveContext } from '../../rdf/jsonld-context.js';

/** URI schemes that stand for themselves in a query (IANA-registered ones seen in RDF data). */
const SCHEMES = new Set([
  'http', 'https', 'urn', 'did', 'mailto', 'tag', 'data', 'file', 'ftp', 'tel', 'geo', 'isbn', 'uuid',
  'ipfs', 'ipns', 'ark', 'info', 'doi', 'ws', 'wss', 'blob', 'about', 'ni', 'sip', 'xmpp', 'news', 'ldap', 'fluree',
]);

const COMPACT = /^([A-Za-z][A-Za-z0-9_.-]*):(.*)$/s;

/**
 * Strict views by context: one per processed context, so the queries parsed under it share it, and
 * with it their formatter and its result-cell cache (format.ts), which the parse cache bounds.
 */
const stricts = new WeakMap<ActiveContext, ActiveContext>();

/** The context, with IRI expansion that refuses an undefined prefix (the original stays usable through `expandLenient`). */
export function strictContext(ctx: ActiveContext): ActiveContext {
  let strict = stricts.get(ctx);
  if (strict === undefined) stricts.set(ctx, strict = makeStrict(ctx));
  return strict;
}

function makeStrict(ctx: ActiveContext): ActiveContext {
  const strict = Object.create(ctx) as ActiveContext;
  strict.expandIri = (s: string, vocab: boolean): string => {
    const out = ActiveContext.prototype.expandIri.call(strict, s, vocab);
    if (out !== s) return out;
    const m = COMPACT.exec(s);
    if (m && !m[2]!.startsWith('//') && !SCHEMES.has(m[1]!.toLowerCase())) {
      throw badRequest(`undefined prefix "${m[1]}" in "${s}": declare it in the query's @context (or write the full IRI)`);
    }
    return out;
  };
  return strict;
}

/** Expand without the undefined-prefix check (ledger ids such as `other:main` name graphs too). */
export function expandLenient(ctx: ActiveContext, s: string, vocab: boolean): string {
  return ActiveContext.prototype.expandIri.call(ctx, s, vocab);
}
