/** Runs a parsed Cypher statement clause by clause (cypher.md §5); writing clauses go to env.writer (§7). */
import type { Clause, Expr, Statement } from './ast.js';
import { evaluate, type Env } from './eval.js';
import { matchRows, type Row } from './match.js';
import { columnsOf, project } from './project.js';
import { keyOf, type Value } from './values.js';
import { cypherError } from './errors.js';
import { procedure } from './procedures.js';
import { checkScope } from './scope.js';
import { compiledRead } from './compile.js';

/** The columns and rows of a statement's RETURN. */
export interface CypherTable { columns: string[]; rows: Value[][] }

function introduced(c: Extract<Clause, { k: 'match' | 'create' | 'merge' }>): string[] {
  const out: string[] = [];
  for (const p of c.k === 'merge' ? [c.pattern] : c.patterns) {
    if (p.pathVar) out.push(p.pathVar);
    for (const n of p.nodes) if (n.v !== undefined) out.push(n.v);
    for (const r of p.rels) if (r.v !== undefined) out.push(r.v);
  }
  return [...new Set(out)];
}

/** The `EXISTS { … }` subexpressions of a WHERE (not those nested in another EXISTS). */
function existsIn(e: Expr, out: Extract<Expr, { k: 'exists' }>[]): void {
  if (e.k === 'exists') { out.push(e); return; }
  if (e.k === 'op' || e.k === 'call') e.args.forEach((a) => existsIn(a, out));
  else if (e.k === 'case') { if (e.subject) existsIn(e.subject, out); e.whens.forEach(([a, b]) => { existsIn(a, out); existsIn(b, out); }); if (e.else) existsIn(e.else, out); }
}

/**
 * Match every EXISTS pattern of a WHERE for all candidate rows at once (one engine query each, not
 * one per row); evaluate() then reads the extensions of its row from env.exists.
 */
async function batchExists(where: Expr, rows: Row[], env: Env): Promise<void> {
  if (rows.length < 2) return;
  const found: Extract<Expr, { k: 'exists' }>[] = [];
  existsIn(where, found);
  for (const e of found) {
    const exts = await matchRows(env.g, env.names, e.patterns, rows, (x, r) => evaluate(x, r, env));
    const byRow = new WeakMap<Row, Row[]>();
    rows.forEach((r, i) => byRow.set(r, exts[i]!));
    (env.exists ??= new WeakMap()).set(e, byRow);
  }
}

/**
 * Run a statement (with its UNION branches) to its table. Reads of the compiled shape run as one
 * algebra query (compile.ts) unless `compiled` is false; the rest clause by clause.
 */
export async function runStatement(stmt: Statement, env: Env, compiled = true): Promise<CypherTable> {
  if (compiled && !env.writer) {
    const compiled = await compiledRead(stmt, env);
    if (compiled) return compiled;
  }
  const first = await runSingle(stmt.clauses, env);
  if (!stmt.unions) return first;
  const rows = [...first.rows];
  for (const u of stmt.unions) {
    const t = await runSingle(u.clauses, env);
    if (t.columns.join('\u0000') !== first.columns.join('\u0000')) throw cypherError('SemanticError', 'every UNION branch must return the same column names');
    rows.push(...t.rows);
  }
  if (stmt.unions[0]!.all) return { columns: first.columns, rows };
  const seen = new Set<string>();
  return { columns: first.columns, rows: rows.filter((r) => { const k = r.map(keyOf).join('\u0001'); if (seen.has(k)) return false; seen.add(k); return true; }) };
}

async function runSingle(clauses: Clause[], env: Env): Promise<CypherTable> {
  checkScope(clauses);
  let rows: Row[] = [new Map()];
  let vars: string[] = [];
  const ev = (e: Parameters<typeof evaluate>[0], row: Row) => evaluate(e, row, env);
  for (const c of clauses) {
    await env.writer?.sync();
    switch (c.k) {
      case 'create': case 'merge': case 'set': case 'remove': case 'delete': {
        if (!env.writer) throw cypherError('SemanticError', `${c.k === 'delete' && c.detach ? 'DETACH DELETE' : c.k.toUpperCase()} is a writing clause: send write statements to /update`);
        rows = await env.writer.run(c, rows, env);
        if (c.k === 'create' || c.k === 'merge') vars = [...vars, ...introduced(c).filter((v) => !vars.includes(v))];
        break;
      }
      case 'match': {
        const fresh = introduced(c).filter((v) => !vars.includes(v));
        const exts = await matchRows(env.g, env.names, c.patterns, rows, ev, c.where);
        const cands = exts.map((es, i) => es.map((ext) => new Map([...rows[i]!, ...ext])));
        if (c.where) await batchExists(c.where, cands.flat(), env);
        const next: Row[] = [];
        for (let i = 0; i < rows.length; i++) {
          let any = false;
          for (const row of cands[i]!) {
            if (c.where && (await evaluate(c.where, row, env)) !== true) continue;
            any = true;
            next.push(row);
          }
          if (!any && c.optional) next.push(new Map([...rows[i]!, ...fresh.map((v) => [v, null] as [string, Value])]));
        }
        rows = next;
        vars = [...vars, ...fresh];
        break;
      }
      case 'unwind': {
        const next: Row[] = [];
        for (const r of rows) {
          const v = await evaluate(c.e, r, env);
          const list = v === null ? [] : Array.isArray(v) ? v : [v];
          for (const x of list) next.push(new Map([...r, [c.as, x]]));
        }
        rows = next;
        if (!vars.includes(c.as)) vars = [...vars, c.as];
        break;
      }
      case 'with':
        rows = await project(c.proj, rows, env, vars);
        vars = columnsOf(c.proj, vars);
        break;
      case 'call': {
        const names = await procedure(c.proc, env);
        rows = rows.flatMap((r) => names.map((n) => new Map([...r, [c.yields[0]!, n]])));
        vars = [...vars, c.yields[0]!];
        if (clauses.length === 1) return { columns: [c.yields[0]!], rows: names.map((n) => [n]) };
        break;
      }
      case 'return': {
        const columns = columnsOf(c.proj, vars);
        const out = await project(c.proj, rows, env, vars);
        return { columns, rows: out.map((r) => columns.map((k) => r.get(k) ?? null)) };
      }
    }
  }
  return { columns: [], rows: [] };
}
