/**
 * The documented differences between Ledgraph and oxigraph (docs/RELIABILITY.md, "Documented
 * differences"). Each matcher recognises its difference, mostly by a variant of the case — the
 * construct in question removed or respelled — on which the engines must agree.
 */
import { literal, type Term } from '../../src/core/rdf/terms.js';
import { compareAnswers, type Answer } from './answers.js';
import { EX } from './sparql-smith.js';

/** What a known-difference matcher sees: the case, both answers, and a way to rerun a variant. */
export interface DiffContext {
  query: string; data: string; lg: Answer; oxa: Answer;
  /** Run a variant (data and query) on both engines; undefined when they agree. */
  rerun(data: string, query: string): Promise<string | undefined>;
}

/** A difference the project documents (docs/RELIABILITY.md, "Differential testing"). */
export interface KnownDifference { id: string; matches(ctx: DiffContext): Promise<boolean> | boolean }

const NUMERIC = /#(integer|decimal|double|float)$/;
/** Numeric literals in their value's canonical spelling (oxigraph stores numbers as values). */
function canonicalNumbers(a: Answer): Answer {
  const fix = (t: Term): Term => (t.termType === 'Literal' && NUMERIC.test(t.datatype.value) && Number.isFinite(Number(t.value))
    ? literal(String(Number(t.value)), t.datatype) : t);
  if (a.kind === 'quads') return { kind: 'quads', quads: a.quads.map((q) => ({ ...q, subject: fix(q.subject), object: fix(q.object) })) };
  if (a.kind !== 'table' || a.table.type !== 'bindings') return a;
  return { kind: 'table', table: { ...a.table, rows: a.table.rows.map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, fix(v)]))) } };
}

const LANG_LITERAL = /"((?:[^"\\]|\\.)*)"@[A-Za-z]+(?:-[A-Za-z0-9]+)*/g;
const HAS_LANG_LITERAL = /"(?:[^"\\]|\\.)*"@[A-Za-z]/;

/** The end index (exclusive) of the balanced `{…}` block opening at `open`. */
function blockEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i + 1;
  }
  return text.length;
}

/** `text` with every block that `head` (a regex source ending before `{`) opens rewritten by `f(body)`. */
function rewriteBlocks(text: string, head: RegExp, f: (body: string, whole: string) => string): string {
  let out = '';
  let at = 0;
  for (const m of text.matchAll(head)) {
    if (m.index! < at) continue;
    const open = text.indexOf('{', m.index! + m[0].length - 1);
    const end = blockEnd(text, open);
    out += text.slice(at, m.index!) + f(text.slice(open + 1, end - 1), text.slice(m.index!, end));
    at = end;
  }
  return out + text.slice(at);
}

/** Whether a group body holds a required triple pattern (outside EXISTS, OPTIONAL and MINUS blocks). */
const hasTriples = (body: string) => / \. /.test(rewriteBlocks(body, /(?:(?:NOT )?EXISTS|OPTIONAL|MINUS) \{/g, () => 'X'));

/** Documented spec differences and known bugs, by id; see docs/RELIABILITY.md. */
export const KNOWN_DIFFERENCES: KnownDifference[] = [
  {
    // oxigraph keeps numbers as values: "2.0"^^xsd:decimal comes back as "2"; Ledgraph keeps the term.
    // Also when the query spells a number non-canonically and shows the spelling (STR(2.0)):
    // recognised when the difference disappears with such constants respelled.
    id: 'numeric-lexical-form',
    matches: async ({ query, data, lg, oxa, rerun }) => {
      if (compareAnswers(canonicalNumbers(lg), canonicalNumbers(oxa)) === undefined) return true;
      const q = query.replace(/(?<![\w.])2\.0(?![\w.])/g, '2.5').replace(/(?<![\w.])1e0(?![\w.])/g, '2.5E0');
      return q !== query && (await rerun(data, q)) === undefined;
    },
  },
  {
    // A zero-length path from a constant that is not in the graph: SPARQL 1.1 §18.5 binds the
    // constant (Ledgraph), oxigraph binds only terms of the graph.
    id: 'zero-length-path-absent-term',
    // Recognised when the difference disappears with the zero-length option removed from every
    // path (`(p)*` -> `(p)+`, `(p)?` -> `(p)`).
    matches: async ({ query, data, rerun }) => {
      if (!/\)[?*]/.test(query.replace(/\?[a-z]\w*/g, ''))) return false;
      return (await rerun(data, query.replace(/\)\*/g, ')+').replace(/\)\?(?!\w)/g, ')'))) === undefined;
    },
  },
  {
    // GRAPH over a group without required triple patterns (VALUES, BIND, FILTER, and triples only
    // under OPTIONAL, MINUS or EXISTS). SPARQL 1.1 §18.6
    // evaluates the group in each named graph: `GRAPH ?g` joins it with ?g bound to every named
    // graph (no rows when there is none), `GRAPH <iri>` gives no rows when the dataset has no such
    // graph (Ledgraph). oxigraph evaluates the group once, ?g unbound. Recognised when the
    // difference disappears with those GRAPH wrappers removed.
    id: 'graph-without-triples',
    matches: async ({ query, data, rerun }) => {
      // GRAPH <iri> naming no graph of the data: the same query once the graph exists.
      const absent = [...new Set(query.match(/GRAPH ex:g\d/g) ?? [])].map((g) => g.slice(9)).filter((g) => !data.includes(`<${EX}${g}> .`));
      if (absent.length && (await rerun(data + absent.map((g) => `<urn:x-dummy> <urn:x-dummy> <urn:x-dummy> <${EX}${g}> .\n`).join(''), query)) === undefined) return true;
      const q = rewriteBlocks(query, /GRAPH (?:\?g|ex:g\d) \{/g, (body, whole) => (hasTriples(body) ? whole : `{${body}}`));
      return q !== query && (await rerun(data, q)) === undefined;
    },
  },
  {
    // Alternative paths keep duplicates: SPARQL 1.1 §18.5 evaluates `(p|q)` as the multiset union
    // of both (Ledgraph: `?x (p|q) ?y` matches twice when both hold); oxigraph returns each pair
    // once. Recognised when the difference disappears with every alternative cut to its first branch.
    id: 'path-alternative-duplicates',
    matches: async ({ query, data, rerun }) => {
      // Every `|` of a path (not of a negated set `!(…)`) becomes `/`.
      let q = '';
      let negated = 0;
      for (let i = 0; i < query.length; i++) {
        const ch = query[i]!;
        if (ch === '!' && query[i + 1] === '(') negated++;
        else if (ch === ')' && negated) negated--;
        q += ch === '|' && !negated && query[i + 1] !== '|' && query[i - 1] !== '|' ? '/' : ch;
      }
      if (q === query) return false;
      return (await rerun(data, q)) === undefined;
    },
  },
  {
    // `=`, `!=`, `IN`, `NOT IN` between literals that are not comparable ("a" = 1, "x"@en != true):
    // SPARQL 1.1 §17.4.1.7 (RDFterm-equal) raises a type error (Ledgraph); oxigraph answers false
    // for literals of different known datatypes. Recognised when the difference disappears with
    // the IN lists emptied, or with that and `=` / `!=` turned into `<` / `>` (errors in both
    // engines for such pairs).
    id: 'incomparable-literal-equality',
    matches: async ({ query, data, rerun }) => {
      if (!/ IN \(| !?= /.test(query)) return false;
      const emptied = query.replace(/ IN \([^()]*\)/g, ' IN ()');
      if (emptied !== query && (await rerun(data, emptied)) === undefined) return true;
      return (await rerun(data, emptied.replace(/ != /g, ' > ').replace(/ = /g, ' < '))) === undefined;
    },
  },
  {
    // An empty IN list: `?x IN ()` is false and `?x NOT IN ()` true for a bound ?x (SPARQL 1.1
    // §17.4.1.9–10; Ledgraph everywhere, oxigraph in a plain FILTER), but oxigraph answers
    // otherwise in BIND (`BIND(?d IN () AS ?x)` leaves ?x unbound), inside FILTER EXISTS and inside
    // COALESCE. Looks like an oxigraph bug. Recognised when the difference disappears with the
    // empty lists made non-empty.
    id: 'oxigraph-empty-in-list',
    matches: async ({ query, data, rerun }) => {
      if (!/ IN \(\)/.test(query)) return false;
      return (await rerun(data, query.replace(/ IN \(\)/g, ' IN (<urn:x-none>)'))) === undefined;
    },
  },
  {
    // FILTER [NOT] EXISTS over a group with MINUS, a subquery, VALUES, BIND or OPTIONAL: SPARQL
    // 1.1 §18.6 defines EXISTS by substituting the solution into the pattern, which is ambiguous
    // for these (a known erratum; SPARQL 1.2 revises it), and the engines resolve it differently:
    // `?a ex:p0 ?o FILTER(EXISTS { BIND(ex:s2 AS ?a) })` keeps only ?a = ex:s2 in Ledgraph (the
    // inner BIND must agree with the outer ?a), every row in oxigraph. Recognised when the
    // difference disappears with those EXISTS filters made constant.
    id: 'exists-substitution',
    matches: async ({ query, data, rerun }) => {
      let found = false;
      const q = rewriteBlocks(query, /FILTER\((?:NOT )?EXISTS \{/g, (body, whole) => {
        if (!/MINUS|SELECT|VALUES|BIND|OPTIONAL/.test(body)) return whole;
        found = true;
        return `FILTER(${whole.startsWith('FILTER(NOT') ? 'false' : 'true'}`;
      });
      return found && (await rerun(data, q)) === undefined;
    },
  },
  {
    // Ordering booleans: SPARQL 1.1 §17.3 maps `<` on two xsd:boolean to op:boolean-less-than, so
    // `false < true` is true (Ledgraph); oxigraph answers false. Recognised when the difference
    // disappears with the ordering operators turned into (in)equality.
    id: 'boolean-ordering',
    matches: async ({ query, data, rerun }) => {
      if (!/ (<|>|<=|>=) /.test(query) || !/true|false|BOUND\(|\bis[A-Z]\w*\(|sameTerm\(|CONTAINS\(|STR(STARTS|ENDS)\(|LANGMATCHES\(|REGEX\(|xsd:boolean\(| IN \(|EXISTS/.test(query)) return false;
      return (await rerun(data, query.replace(/ (<=|>=) /g, ' = ').replace(/ (<|>) /g, ' != '))) === undefined;
    },
  },
  {
    // MIN / MAX over values of different kinds (numbers, strings, language strings, IRIs): the
    // order between literals of different datatypes is not defined by SPARQL 1.1 §15.1, and the
    // engines order them differently. Recognised when the difference disappears with MIN and MAX
    // replaced by COUNT.
    id: 'min-max-mixed-types',
    matches: async ({ query, data, rerun }) => {
      if (!/\b(MIN|MAX)\(/.test(query)) return false;
      return (await rerun(data, query.replace(/\b(MIN|MAX)\(/g, 'COUNT('))) === undefined;
    },
  },
  {
    // Effective boolean value of a language-tagged literal: SPARQL 1.1 §17.2.2 treats it as a plain
    // literal (true unless empty; Ledgraph), oxigraph raises a type error. Recognised when the
    // difference disappears with every language tag dropped from data and query.
    id: 'ebv-language-literal',
    matches: async ({ query, data, rerun }) => {
      if (!HAS_LANG_LITERAL.test(query) && !HAS_LANG_LITERAL.test(data)) return false;
      return (await rerun(data.replace(LANG_LITERAL, '"$1"'), query.replace(LANG_LITERAL, '"$1"'))) === undefined;
    },
  },
];
