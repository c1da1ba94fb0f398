/** The 400s of IRIs a write cannot store (docs/jsonld-transactions.md "No relative IRI is stored"). */
import { badRequest, type LedgraphError } from '../errors.js';

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** The 400 for an IRI reference that no base made absolute. */
export function relativeIriError(value: string): LedgraphError {
  if (value.startsWith('?')) return badRequest(`variables such as ${value} are only allowed in update templates`);
  if (SCHEME.test(value)) return badRequest(`invalid IRI ${JSON.stringify(value)}: an IRI cannot contain spaces or <>"{}|^\`\\`);
  return badRequest(`relative IRI ${JSON.stringify(value)}: give "@base" in the context or the base request parameter, or write an absolute IRI`);
}

/** Is `iri` absolute (it has a scheme)? */
export function hasScheme(iri: string): boolean { return SCHEME.test(iri); }
