/**
 * Property path aliases (jsonld-query.md §5.8): the string syntax (`^ex:a/(ex:b|ex:c)`, `ex:p+`) and
 * the array syntax (`["/", "ex:a", ["^", "ex:b"]]`) of a context term's `@path`, parsed into the
 * algebra's path expressions, with the restrictions the language places on closures.
 */
import { badRequest } from '../../errors.js';
import type { ActiveContext } from '../../rdf/jsonld-context.js';
import { namedNode } from '../../rdf/terms.js';
import type { PathExpr } from '../algebra/algebra.js';
import { quote } from '../../excerpt.js';

/** Parse a `@path` definition (string or array syntax) into a path expression. */
export function parsePath(p: unknown, ctx: ActiveContext): PathExpr {
  const path = Array.isArray(p) ? arrayPath(p, ctx) : typeof p === 'string' ? new PathParser(p, ctx).parse() : undefined;
  if (!path) throw badRequest(`invalid path expression ${quote(p)}`);
  checkPath(path);
  return path;
}

function arrayPath(p: unknown, ctx: ActiveContext): PathExpr {
  if (typeof p === 'string') return { type: 'link', iri: namedNode(ctx.expandIri(p, true)) };
  if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'string') throw badRequest(`invalid path expression ${quote(p)}`);
  const [op, ...rest] = p as [string, ...unknown[]];
  const items = rest.map((x) => arrayPath(x, ctx));
  switch (op) {
    case '+': case '*': case '^':
      if (items.length !== 1) throw badRequest(`path operator ${op} takes one argument`);
      return op === '+' ? { type: 'oneOrMore', path: items[0]! } : op === '*' ? { type: 'zeroOrMore', path: items[0]! } : { type: 'inv', path: items[0]! };
    case '|': case '/':
      if (items.length < 2) throw badRequest(`path operator ${op} takes at least two arguments`);
      return { type: op === '|' ? 'alt' : 'seq', items };
    default:
      throw badRequest(`invalid path operator ${quote(op)} (use +, *, ^, | or /)`);
  }
}

/** Rejects what §5.8 rules out: closures over anything but a (possibly inverse) predicate. */
function checkPath(p: PathExpr): void {
  switch (p.type) {
    case 'oneOrMore': case 'zeroOrMore': {
      const inner = p.path.type === 'inv' ? p.path.path : p.path;
      if (inner.type !== 'link') throw badRequest('transitive paths (+, *) apply to a single predicate only');
      return;
    }
    case 'zeroOrOne': throw badRequest('the ? path operator is not supported');
    case 'inv': checkPath(p.path); return;
    case 'seq': case 'alt': p.items.forEach(checkPath); return;
    default: return;
  }
}

/** Recursive-descent parser of the string path syntax: `^ex:a/(ex:b|ex:c)+`, `<iri>` for full IRIs. */
class PathParser {
  private i = 0;
  constructor(private readonly src: string, private readonly ctx: ActiveContext) {}

  parse(): PathExpr {
    const p = this.alt();
    this.ws();
    if (this.i < this.src.length) this.fail(`unexpected "${this.src[this.i]}"`);
    return p;
  }
  private fail(msg: string): never { throw badRequest(`invalid path expression ${quote(this.src)}: ${msg}`); }
  private ws(): void { while (/\s/.test(this.src[this.i] ?? '')) this.i++; }
  private alt(): PathExpr {
    const items = [this.seq()];
    for (this.ws(); this.src[this.i] === '|'; this.ws()) { this.i++; items.push(this.seq()); }
    return items.length === 1 ? items[0]! : { type: 'alt', items };
  }
  private seq(): PathExpr {
    const items = [this.step()];
    for (this.ws(); this.src[this.i] === '/'; this.ws()) { this.i++; items.push(this.step()); }
    return items.length === 1 ? items[0]! : { type: 'seq', items };
  }
  private step(): PathExpr {
    this.ws();
    let inverse = false;
    if (this.src[this.i] === '^') { inverse = true; this.i++; this.ws(); }
    let p: PathExpr;
    const c = this.src[this.i];
    if (c === '(') {
      this.i++;
      p = this.alt();
      this.ws();
      if (this.src[this.i] !== ')') this.fail('missing ")"');
      this.i++;
    } else if (c === '<') {
      const end = this.src.indexOf('>', this.i);
      if (end < 0) this.fail('missing ">"');
      p = { type: 'link', iri: namedNode(this.src.slice(this.i + 1, end)) };
      this.i = end + 1;
    } else {
      const m = /^[^\s|/^+*?()<>]+/.exec(this.src.slice(this.i));
      if (!m) this.fail(c === undefined ? 'unexpected end' : `unexpected "${c}"`);
      this.i += m[0].length;
      p = { type: 'link', iri: namedNode(this.ctx.expandIri(m[0], true)) };
    }
    const post = this.src[this.i];
    if (post === '+') { this.i++; p = { type: 'oneOrMore', path: p }; }
    else if (post === '*') { this.i++; p = { type: 'zeroOrMore', path: p }; }
    else if (post === '?') { this.i++; p = { type: 'zeroOrOne', path: p }; }
    return inverse ? { type: 'inv', path: p } : p;
  }
}
