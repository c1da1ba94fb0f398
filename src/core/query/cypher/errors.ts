/** Cypher problems (cypher.md §9): a 400 err:db/BadRequest whose cause names the kind. */
import { LedgraphError } from '../../errors.js';

export type CypherErrorKind = 'SyntaxError' | 'SemanticError' | 'Unsupported' | 'ParameterMissing' | 'TypeError' | 'LimitExceeded';

/** A 400 with `cause.@type` err:cypher/<kind>; `outer` is the top-level message (defaults to `msg`). */
export function cypherError(kind: CypherErrorKind, msg: string, outer?: string): LedgraphError {
  const cause = new LedgraphError(400, `err:cypher/${kind}`, msg);
  return new LedgraphError(400, 'err:db/BadRequest', outer ?? `Cypher ${kind === 'Unsupported' ? 'unsupported form' : kind}: ${msg}`, { cause });
}

/** A syntax error at a 0-based offset of the statement, reported as line and column (1-based). */
export function syntaxError(text: string, offset: number, msg: string): LedgraphError {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const col = offset - before.lastIndexOf('\n');
  return cypherError('SyntaxError', msg, `Cypher syntax error at line ${line}, column ${col}: ${msg}`);
}
