/**
 * Recursive-descent parser for the Cypher read subset (cypher.md §5–§6). Written here rather than
 * taken from npm: the maintained JS Cypher parsers are either grammar-generated (antlr4, heavy and
 * without our error positions) or unmaintained. Nesting is bounded (MAX_DEPTH) so hostile input
 * fails with a 400 instead of a stack overflow. Forms outside the subset (§10) are named in a
 * 400 err:cypher/Unsupported. Writing clauses (§7) parse here too; run.ts and write.ts run them.
 */
import { WRITE_CLAUSES, type Clause, type Expr, type Item, type NodePat, type PathPat, type Projection, type RelPat, type RemoveItem, type SetItem, type Statement } from './ast.js';
import { cypherError, syntaxError } from './errors.js';
import { lex, type Token } from './lexer.js';

const MAX_DEPTH = 200;
const UNSUPPORTED: Record<string, string> = {
  FOREACH: 'FOREACH', LOAD: 'LOAD CSV (use UNWIND $rows)',USE: 'USE', START: 'explicit transactions', BEGIN: 'explicit transactions', COMMIT: 'explicit transactions',
  DROP: 'index and constraint commands', SHOW: 'SHOW commands',
};
const UNSUPPORTED_FN: Record<string, string> = {
  shortestpath: 'shortestPath', allshortestpaths: 'allShortestPaths', reduce: 'reduce', all: 'all()', any: 'any()',
  none: 'none()', single: 'single()', point: 'spatial functions', distance: 'spatial functions',
};

/** Parse one Cypher statement (a trailing `;` allowed). */
export function parseCypher(text: string): Statement {
  return new Parser(text).statement();
}

class Parser {
  private toks: Token[];
  private i = 0;
  private depth = 0;
  constructor(private text: string) { this.toks = lex(text); }

  private get t(): Token { return this.toks[this.i]!; }
  private peek(n = 1): Token { return this.toks[Math.min(this.i + n, this.toks.length - 1)]!; }
  private fail(msg: string, tok = this.t): never { throw syntaxError(this.text, tok.pos, msg); }
  private isKw(w: string, tok = this.t): boolean { return tok.kind === 'ident' && tok.text.toUpperCase() === w; }
  private kw(w: string): boolean { if (this.isKw(w)) { this.i++; return true; } return false; }
  private needKw(w: string): void { if (!this.kw(w)) this.fail(`expected ${w}`); }
  private is(p: string): boolean { return this.t.kind === 'punct' && this.t.text === p; }
  private eat(p: string): boolean { if (this.is(p)) { this.i++; return true; } return false; }
  private need(p: string): void { if (!this.eat(p)) this.fail(`expected '${p}'`); }
  private name(): string {
    const t = this.t;
    if (t.kind === 'ident' || t.kind === 'qident') { this.i++; return t.text; }
    return this.fail('expected a name');
  }
  private enter(): void { if (++this.depth > MAX_DEPTH) this.fail(`statement nested deeper than ${MAX_DEPTH} levels`); }

  statement(): Statement {
    const clauses = this.single();
    const unions: { all: boolean; clauses: Clause[] }[] = [];
    while (this.kw('UNION')) {
      const all = this.kw('ALL');
      if (unions.length && unions[0]!.all !== all) throw cypherError('SemanticError', 'UNION and UNION ALL cannot be mixed');
      unions.push({ all, clauses: this.single() });
    }
    if (this.eat(';') && this.t.kind !== 'eof') throw cypherError('SemanticError', 'one statement per request: a second statement follows the ;');
    if (this.t.kind !== 'eof') this.fail(`unexpected '${this.t.text}'`);
    if (unions.length && [clauses, ...unions.map((u) => u.clauses)].some((cs) => cs.some((c) => c.k === 'call'))) throw cypherError('Unsupported', 'CALL inside UNION');
    if (unions.length && [clauses, ...unions.map((u) => u.clauses)].some((cs) => cs.some((c) => WRITE_CLAUSES.has(c.k)))) throw cypherError('Unsupported', 'writing clauses inside UNION');
    return { clauses, ...(unions.length ? { unions } : {}) };
  }

  private single(): Clause[] {
    const clauses: Clause[] = [];
    while (this.t.kind !== 'eof' && !this.is(';') && !this.isKw('UNION')) clauses.push(this.clause());
    if (!clauses.length) this.fail('empty statement');
    const last = clauses[clauses.length - 1]!;
    const standaloneCall = clauses.length === 1 && last.k === 'call';
    const writes = clauses.some((c) => WRITE_CLAUSES.has(c.k));
    if (writes && clauses.some((c) => c.k === 'call')) throw cypherError('Unsupported', 'CALL in a write statement');
    if (last.k !== 'return' && !standaloneCall && !(writes && WRITE_CLAUSES.has(last.k))) {
      this.fail(writes ? 'a write statement ends with a writing clause or RETURN' : 'a read statement ends with RETURN', this.t);
    }
    clauses.slice(0, -1).forEach((c) => { if (c.k === 'return') this.fail('RETURN must be the last clause'); });
    clauses.forEach((c, i) => { if (c.k === 'call' && i !== 0) throw cypherError('Unsupported', 'CALL after other clauses (a procedure call is a standalone statement or starts one)'); });
    return clauses;
  }

  private call(): Clause {
    const PROCS: Record<string, [Extract<Clause, { k: 'call' }>['proc'], string]> = {
      'db.labels': ['db.labels', 'label'], 'db.relationshiptypes': ['db.relationshiptypes', 'relationshipType'], 'db.propertykeys': ['db.propertykeys', 'propertyKey'],
    };
    if (this.is('{')) throw cypherError('Unsupported', 'CALL { … } subqueries are outside Ledgraph\'s Cypher subset');
    let name = this.name();
    while (this.eat('.')) name += '.' + this.name();
    const proc = PROCS[name.toLowerCase()];
    if (!proc) throw cypherError('Unsupported', `procedure ${name} is outside Ledgraph's Cypher subset (only db.labels, db.relationshipTypes, db.propertyKeys)`);
    this.need('('); this.need(')');
    const yields: string[] = [];
    if (this.kw('YIELD')) {
      do { const y = this.name(); if (y !== proc[1]) throw cypherError('SemanticError', `${name} yields ${proc[1]}, not ${y}`); yields.push(y); } while (this.eat(','));
    }
    return { k: 'call', proc: proc[0], yields: yields.length ? yields : [proc[1]] };
  }

  private clause(): Clause {
    const t = this.t;
    const w = t.kind === 'ident' ? t.text.toUpperCase() : '';
    if (w === 'MATCH') { this.i++; return this.match(false); }
    if (w === 'OPTIONAL') { this.i++; this.needKw('MATCH'); return this.match(true); }
    if (w === 'UNWIND') { this.i++; const e = this.expr(); this.needKw('AS'); return { k: 'unwind', e, as: this.name() }; }
    if (w === 'WITH') { this.i++; return { k: 'with', proj: this.projection(true) }; }
    if (w === 'RETURN') { this.i++; return { k: 'return', proj: this.projection(false) }; }
    if (w === 'CALL') { this.i++; return this.call(); }
    if (w === 'CREATE') { this.i++; return { k: 'create', patterns: this.patternList() }; }
    if (w === 'MERGE') { this.i++; return this.merge(); }
    if (w === 'SET') { this.i++; return { k: 'set', items: this.setItems() }; }
    if (w === 'REMOVE') { this.i++; return { k: 'remove', items: this.removeItems() }; }
    if (w === 'DELETE') { this.i++; return { k: 'delete', detach: false, exprs: this.exprList() }; }
    if (w === 'DETACH') { this.i++; this.needKw('DELETE'); return { k: 'delete', detach: true, exprs: this.exprList() }; }
    if (UNSUPPORTED[w]) throw cypherError('Unsupported', `${UNSUPPORTED[w]} is outside Ledgraph's Cypher subset`);
    return this.fail(`expected a clause (MATCH, OPTIONAL MATCH, WITH, UNWIND, RETURN, CREATE, MERGE, SET, REMOVE, DELETE), got '${t.text}'`);
  }

  private patternList(): PathPat[] {
    const out = [this.path()];
    while (this.eat(',')) out.push(this.path());
    return out;
  }
  private exprList(): Expr[] {
    const out = [this.expr()];
    while (this.eat(',')) out.push(this.expr());
    return out;
  }

  private merge(): Clause {
    const pattern = this.path();
    const onCreate: SetItem[] = [], onMatch: SetItem[] = [];
    while (this.isKw('ON')) {
      this.i++;
      const which = this.kw('CREATE') ? onCreate : this.kw('MATCH') ? onMatch : this.fail('expected CREATE or MATCH after ON');
      this.needKw('SET');
      which.push(...this.setItems());
    }
    return { k: 'merge', pattern, onCreate, onMatch };
  }

  private setItems(): SetItem[] {
    const out: SetItem[] = [];
    do {
      const v = this.name();
      if (this.eat('.')) {
        const key = this.name();
        if (this.is('.')) throw cypherError('Unsupported', 'chained property access n.a.b');
        this.need('=');
        out.push({ k: 'prop', v, key, e: this.expr() });
      } else if (this.eat('+=')) out.push({ k: 'merge', v, e: this.expr() });
      else if (this.eat('=')) out.push({ k: 'replace', v, e: this.expr() });
      else if (this.is(':')) out.push({ k: 'labels', v, labels: this.labelList() });
      else this.fail("expected '.', '=', '+=' or ':' in SET");
    } while (this.eat(','));
    return out;
  }

  private removeItems(): RemoveItem[] {
    const out: RemoveItem[] = [];
    do {
      const v = this.name();
      if (this.eat('.')) out.push({ k: 'prop', v, key: this.name() });
      else if (this.is(':')) out.push({ k: 'labels', v, labels: this.labelList() });
      else this.fail("expected '.' or ':' in REMOVE");
    } while (this.eat(','));
    return out;
  }

  private labelList(): string[] {
    const out: string[] = [];
    while (this.eat(':')) {
      if (this.t.kind === 'param') throw cypherError('Unsupported', 'labels given by parameters');
      out.push(this.name());
    }
    return out;
  }

  private match(optional: boolean): Clause {
    const patterns: PathPat[] = [this.path()];
    while (this.eat(',')) patterns.push(this.path());
    const where = this.kw('WHERE') ? this.expr() : undefined;
    return { k: 'match', optional, patterns, ...(where ? { where } : {}) };
  }

  private path(): PathPat {
    let pathVar: string | undefined;
    if ((this.t.kind === 'ident' || this.t.kind === 'qident') && this.peek().kind === 'punct' && this.peek().text === '=') {
      pathVar = this.name(); this.i++;
    }
    if (this.t.kind === 'ident' && UNSUPPORTED_FN[this.t.text.toLowerCase()]) throw cypherError('Unsupported', `${UNSUPPORTED_FN[this.t.text.toLowerCase()]} is outside Ledgraph's Cypher subset`);
    const nodes = [this.node()];
    const rels: RelPat[] = [];
    while (this.is('-') || this.is('<-')) { rels.push(this.rel()); nodes.push(this.node()); }
    return { ...(pathVar ? { pathVar } : {}), nodes, rels };
  }

  private node(): NodePat {
    const pos = this.t.pos;
    this.need('(');
    const n: NodePat = { labels: [], props: [], pos };
    if (this.t.kind === 'ident' || this.t.kind === 'qident') n.v = this.name();
    while (this.eat(':')) n.labels.push(this.name());
    if (this.is('{')) n.props = this.mapEntries();
    if (this.t.kind === 'param') throw cypherError('Unsupported', 'a parameter as a property map in a pattern');
    this.need(')');
    return n;
  }

  private rel(): RelPat {
    const pos = this.t.pos;
    const leftArrow = this.eat('<-');
    if (!leftArrow) this.need('-');
    const r: RelPat = { types: [], props: [], dir: 'both', pos };
    if (this.eat('[')) {
      if (this.t.kind === 'ident' || this.t.kind === 'qident') r.v = this.name();
      if (this.eat(':')) {
        r.types.push(this.name());
        while (this.eat('|')) { this.eat(':'); r.types.push(this.name()); }
      }
      if (this.eat('*')) {
        let min = 1; let max: number | undefined;
        if (this.t.kind === 'int') { min = Number(this.t.text); max = min; this.i++; }
        if (this.eat('..')) {
          max = undefined;
          if (this.t.kind === 'int') { max = Number(this.t.text); this.i++; }
        } else if (max === undefined) min = 1;
        r.range = max === undefined ? { min } : { min, max };
      }
      if (this.is('{')) r.props = this.mapEntries();
      this.need(']');
    }
    const rightArrow = this.eat('->');
    if (!rightArrow) this.need('-');
    if (leftArrow && rightArrow) this.fail('a relationship has one direction');
    r.dir = leftArrow ? 'in' : rightArrow ? 'out' : 'both';
    return r;
  }

  private mapEntries(): [string, Expr][] {
    this.need('{');
    const out: [string, Expr][] = [];
    if (!this.is('}')) {
      do { const k = this.t.kind === 'string' ? (this.i++, this.toks[this.i - 1]!.text) : this.name(); this.need(':'); out.push([k, this.expr()]); } while (this.eat(','));
    }
    this.need('}');
    return out;
  }

  private projection(isWith: boolean): Projection {
    const p: Projection = { distinct: this.kw('DISTINCT'), star: false, items: [], order: [] };
    if (this.eat('*')) { p.star = true; if (!this.eat(',')) return this.tail(p, isWith); }
    do {
      const start = this.t.pos;
      const e = this.expr();
      const end = this.toks[this.i - 1]!;
      const text = this.text.slice(start, end.pos + (end.kind === 'string' ? end.text.length + 2 : end.kind === 'qident' ? end.text.length + 2 : end.kind === 'param' ? end.text.length + 1 : end.text.length)).trim();
      const item: Item = { e, text };
      if (this.kw('AS')) item.alias = this.name();
      else if (isWith && e.k !== 'var') throw cypherError('SemanticError', `expression in WITH must be aliased (use AS): ${text}`);
      p.items.push(item);
    } while (this.eat(','));
    return this.tail(p, isWith);
  }

  private tail(p: Projection, isWith: boolean): Projection {
    if (this.isKw('ORDER')) {
      this.i++; this.needKw('BY');
      do {
        const e = this.expr();
        const desc = this.kw('DESC') || this.kw('DESCENDING');
        if (!desc) { this.kw('ASC') || this.kw('ASCENDING'); }
        p.order.push({ e, desc });
      } while (this.eat(','));
    }
    if (this.kw('SKIP')) p.skip = this.expr();
    if (this.kw('LIMIT')) p.limit = this.expr();
    if (isWith && this.kw('WHERE')) p.where = this.expr();
    return p;
  }

  // ---- expressions, lowest precedence first
  expr(): Expr {
    this.enter();
    try { return this.or(); } finally { this.depth--; }
  }
  private bin(next: () => Expr, ops: string[], kw = false): Expr {
    let l = next();
    for (;;) {
      const op = ops.find((o) => (kw ? this.isKw(o) : this.is(o)));
      if (!op) return l;
      this.i++;
      l = { k: 'op', op: kw ? op : op, args: [l, next()] };
    }
  }
  private or(): Expr { return this.bin(() => this.xor(), ['OR'], true); }
  private xor(): Expr { return this.bin(() => this.and(), ['XOR'], true); }
  private and(): Expr { return this.bin(() => this.not(), ['AND'], true); }
  private not(): Expr {
    if (this.kw('NOT')) { this.enter(); try { return { k: 'op', op: 'NOT', args: [this.not()] }; } finally { this.depth--; } }
    return this.comparison();
  }
  private comparison(): Expr {
    let l = this.predicate();
    for (;;) {
      const op = ['=', '<>', '<=', '>=', '<', '>', '=~'].find((o) => this.is(o));
      if (!op) return l;
      this.i++;
      l = { k: 'op', op, args: [l, this.predicate()] };
    }
  }
  private predicate(): Expr {
    let l = this.additive();
    for (;;) {
      if (this.isKw('IS')) {
        this.i++;
        const neg = this.kw('NOT');
        this.needKw('NULL');
        l = { k: 'op', op: neg ? 'IS NOT NULL' : 'IS NULL', args: [l] };
      } else if (this.kw('IN')) l = { k: 'op', op: 'IN', args: [l, this.additive()] };
      else if (this.isKw('STARTS') || this.isKw('ENDS')) {
        const w = this.t.text.toUpperCase(); this.i++; this.needKw('WITH');
        l = { k: 'op', op: `${w} WITH`, args: [l, this.additive()] };
      } else if (this.kw('CONTAINS')) l = { k: 'op', op: 'CONTAINS', args: [l, this.additive()] };
      else return l;
    }
  }
  private additive(): Expr { return this.bin(() => this.multiplicative(), ['+', '-']); }
  private multiplicative(): Expr { return this.bin(() => this.power(), ['*', '/', '%']); }
  private power(): Expr { return this.bin(() => this.unary(), ['^']); }
  private unary(): Expr {
    if (this.eat('-')) { this.enter(); try { return { k: 'op', op: 'neg', args: [this.unary()] }; } finally { this.depth--; } }
    if (this.eat('+')) return this.unary();
    return this.postfix();
  }
  private postfix(): Expr {
    let e = this.atom();
    for (;;) {
      if (this.eat('.')) {
        const key = this.name();
        if (e.k === 'prop' && !['year', 'month', 'day', 'hour', 'minute', 'second'].includes(key)) {
          throw cypherError('Unsupported', `chained property access (.${e.key}.${key}) is outside Ledgraph's Cypher subset`);
        }
        e = { k: 'prop', of: e, key };
      } else if (this.eat('[')) {
        if (this.eat('..')) { const to = this.expr(); this.need(']'); e = { k: 'slice', of: e, to }; continue; }
        const a = this.expr();
        if (this.eat('..')) {
          const to = this.is(']') ? undefined : this.expr(); this.need(']');
          e = { k: 'slice', of: e, from: a, ...(to ? { to } : {}) };
        } else { this.need(']'); e = { k: 'index', of: e, idx: a }; }
      } else if (this.is('{') && e.k === 'var') {
        e = this.mapProjection(e.name, e.pos);
      } else if (this.is(':') && e.k === 'var') {
        throw cypherError('Unsupported', 'label predicates in expressions (n:Label) are outside the subset; use a pattern label');
      } else return e;
    }
  }
  private mapProjection(of: string, pos: number): Expr {
    this.need('{');
    const items: Extract<Expr, { k: 'proj' }>['items'] = [];
    if (!this.is('}')) {
      do {
        if (this.eat('.')) { if (this.eat('*')) items.push({ k: 'all' }); else items.push({ k: 'key', key: this.name() }); }
        else { const key = this.name(); this.need(':'); items.push({ k: 'entry', key, e: this.expr() }); }
      } while (this.eat(','));
    }
    this.need('}');
    return { k: 'proj', of, items, pos };
  }
  private atom(): Expr {
    const t = this.t;
    switch (t.kind) {
      case 'string': this.i++; return { k: 'lit', v: t.text };
      case 'int': {
        this.i++;
        const v = BigInt(t.text);
        return { k: 'lit', v };
      }
      case 'float': this.i++; return { k: 'lit', v: Number(t.text) };
      case 'param': this.i++; return { k: 'param', name: t.text, pos: t.pos };
      case 'qident': this.i++; return { k: 'var', name: t.text, pos: t.pos };
      case 'eof': return this.fail('unexpected end of statement');
      case 'punct': break;
      case 'ident': return this.identAtom(t);
    }
    if (this.eat('(')) {
      this.enter();
      try { const e = this.expr(); this.need(')'); return e; } finally { this.depth--; }
    }
    if (this.eat('[')) {
      this.enter();
      try {
        const items: Expr[] = [];
        if (!this.is(']')) do items.push(this.expr()); while (this.eat(','));
        if (this.isKw('IN') || this.is('|') || this.isKw('WHERE')) throw cypherError('Unsupported', 'list comprehensions are outside Ledgraph\'s Cypher subset');
        this.need(']');
        return { k: 'list', items };
      } catch (e) {
        if (this.isKw('IN') || this.is('|')) throw cypherError('Unsupported', 'list and pattern comprehensions are outside Ledgraph\'s Cypher subset');
        throw e;
      } finally { this.depth--; }
    }
    if (this.is('{')) { this.enter(); try { return { k: 'map', entries: this.mapEntries() }; } finally { this.depth--; } }
    return this.fail(`unexpected '${t.text}'`);
  }
  private identAtom(t: Token): Expr {
    const up = t.text.toUpperCase();
    if (up === 'TRUE' || up === 'FALSE') { this.i++; return { k: 'lit', v: up === 'TRUE' }; }
    if (up === 'NULL') { this.i++; return { k: 'lit', v: null }; }
    if (up === 'CASE') { this.i++; return this.caseExpr(); }
    if (up === 'EXISTS' && this.peek().kind === 'punct' && this.peek().text === '{') {
      this.i += 2;
      this.enter();
      try {
        this.kw('MATCH');
        const patterns: PathPat[] = [this.path()];
        while (this.eat(',')) patterns.push(this.path());
        const where = this.kw('WHERE') ? this.expr() : undefined;
        if (this.isKw('RETURN') || this.isKw('WITH')) throw cypherError('Unsupported', 'EXISTS { } with RETURN or WITH (full subqueries)');
        this.need('}');
        return { k: 'exists', patterns, ...(where ? { where } : {}) };
      } finally { this.depth--; }
    }
    // function call: name(.name)* (
    let j = this.i + 1; let fn = t.text;
    while (this.toks[j]?.text === '.' && this.toks[j + 1]?.kind === 'ident' && this.toks[j + 2]?.text === '(') { fn += '.' + this.toks[j + 1]!.text; j += 2; }
    if (this.toks[j]?.kind === 'punct' && this.toks[j]!.text === '(' ) {
      const lower = fn.toLowerCase();
      if (UNSUPPORTED_FN[lower]) throw cypherError('Unsupported', `${UNSUPPORTED_FN[lower]} is outside Ledgraph's Cypher subset`);
      this.i = j + 1;
      this.enter();
      try {
        const distinct = this.kw('DISTINCT');
        if (this.eat('*')) { this.need(')'); return { k: 'call', fn: lower, args: [], distinct, star: true, pos: t.pos }; }
        const args: Expr[] = [];
        if (!this.is(')')) do args.push(this.expr()); while (this.eat(','));
        this.need(')');
        return { k: 'call', fn: lower, args, distinct, star: false, pos: t.pos };
      } finally { this.depth--; }
    }
    this.i++;
    return { k: 'var', name: t.text, pos: t.pos };
  }
  private caseExpr(): Expr {
    this.enter();
    try {
      const subject = this.isKw('WHEN') ? undefined : this.expr();
      const whens: [Expr, Expr][] = [];
      while (this.kw('WHEN')) { const w = this.expr(); this.needKw('THEN'); whens.push([w, this.expr()]); }
      if (!whens.length) this.fail('expected WHEN');
      const els = this.kw('ELSE') ? this.expr() : undefined;
      this.needKw('END');
      return { k: 'case', ...(subject ? { subject } : {}), whens, ...(els ? { else: els } : {}) };
    } finally { this.depth--; }
  }
}
