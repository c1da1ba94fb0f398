/**
 * The token pass before an update is parsed (update-grammar.ts): the
 * `INSERT DATA` / `DELETE DATA` blocks (§3.1.1-3.1.2) with what their grammar rules out refused
 * at its line and column before anything is parsed.
 */
import { badRequest, isLedgraphError, type LedgraphError } from '../../errors.js';
import { positionAt, type Token } from './lexer.js';
import { bracketOf } from './nesting-scan.js';

/** An INSERT DATA or DELETE DATA block: token indexes of its `{` and of the matching `}` (or of eof). */
export interface DataBlock { kind: 'insert' | 'delete'; open: number; close: number }


function updateError(text: string, t: Token, msg: string): LedgraphError {
  return badRequest(`Invalid SPARQL update: ${msg}${positionAt(text, t.start)}`);
}

/**
 * One pass over the tokens (after checkTokenNesting): finds the DATA blocks and refuses what their
 * grammar rules out before anything is parsed: variables in either, blank nodes (`_:x`, `[]`,
 * `[ ... ]`, collections) in DELETE DATA.
 */
export function* scanTokens(text: string, toks: Token[]): Generator<void, DataBlock[]> {
  const blocks: DataBlock[] = [];
  const open: number[] = []; // token indexes of the unclosed `{` of each level
  let block: DataBlock | undefined, blockDepth = 0;
  for (let k = 0; k < toks.length; k++) {
    if ((k & 1023) === 1023) yield;
    const t = toks[k]!, b = bracketOf(t);
    if (b > 0) {
      open.push(k);
      if (t.value === '{' && !block && isDataStart(toks, k)) {
        block = { kind: toks[k - 2]!.value.toUpperCase() === 'INSERT' ? 'insert' : 'delete', open: k, close: -1 };
        blockDepth = open.length;
      } else if (block?.kind === 'delete' && t.value !== '{') {
        throw updateError(text, t, 'blank nodes are not allowed in DELETE DATA');
      }
    } else if (b < 0) {
      if (block && t.value === '}' && open.length === blockDepth) {
        block.close = k;
        blocks.push(block);
        block = undefined;
      }
      open.pop();
    } else if (block) {
      if (t.kind === 'var') {
        const graph = toks[k - 1]!.kind === 'word' && toks[k - 1]!.value.toUpperCase() === 'GRAPH';
        throw updateError(text, t, graph ? 'a variable graph name is not allowed in INSERT DATA or DELETE DATA'
          : `variables are not allowed in ${block.kind === 'insert' ? 'INSERT' : 'DELETE'} DATA`);
      }
      if (block.kind === 'delete' && (t.kind === 'bnode' || t.kind === 'anon')) throw updateError(text, t, 'blank nodes are not allowed in DELETE DATA');
    }
  }
  if (block) { block.close = toks.length - 1; blocks.push(block); } // unterminated: the parse reports it
  return blocks;
}

/** `INSERT DATA {` or `DELETE DATA {` ending at token k. */
function isDataStart(toks: Token[], k: number): boolean {
  const d = toks[k - 1], w = toks[k - 2];
  if (!d || !w || d.kind !== 'word' || w.kind !== 'word' || d.value.toUpperCase() !== 'DATA') return false;
  const kw = w.value.toUpperCase();
  return kw === 'INSERT' || kw === 'DELETE';
}

/** A fast-path error as an update error (the shared grammar helpers name queries). */
export function asUpdateError(e: unknown): unknown {
  if (!isLedgraphError(e) || !e.message.startsWith('Invalid SPARQL query:')) return e;
  return badRequest(e.message.replace(/^Invalid SPARQL query:/, 'Invalid SPARQL update:'));
}
