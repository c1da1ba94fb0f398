#!/usr/bin/env node
/**
 * What a heap grew by between two snapshots (bench/soak.js --snapshots): self bytes and counts per
 * kind of object (constructor or V8 node type), largest growth first, and the Maps/Sets/arrays
 * whose own size grew most, named by the edge that holds them (`Owner.field`).
 *
 *   node bench/heap-diff.js bench/out/soak-heap-100s-….heapsnapshot bench/out/soak-heap-300s-….heapsnapshot
 */
import { readFileSync } from 'node:fs';

function load(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const m = snap.snapshot.meta;
  const nf = m.node_fields.length, ef = m.edge_fields.length;
  const types = m.node_fields.indexOf('type'), names = m.node_fields.indexOf('name'), selfs = m.node_fields.indexOf('self_size'), ecs = m.node_fields.indexOf('edge_count'), ids = m.node_fields.indexOf('id');
  const typeNames = m.node_types[0];
  const eType = m.edge_fields.indexOf('type'), eName = m.edge_fields.indexOf('name_or_index'), eTo = m.edge_fields.indexOf('to_node');
  const edgeTypes = m.edge_types[0];
  const { nodes, edges, strings } = snap;
  const byKind = new Map();
  const count = nodes.length / nf;
  // Holder name of each node: the first property edge pointing at it ("Class.field").
  const nodeName = (i) => {
    const t = typeNames[nodes[i * nf + types]];
    return t === 'object' || t === 'closure' || t === 'native' ? strings[nodes[i * nf + names]] : `(${t})`;
  };
  const heldBy = new Map();
  const parent = new Map(); // node → [holder node, edge label], the first strong edge
  const retained = new Map(); // a node's self size plus its direct Map/array backing stores
  let e = 0;
  for (let i = 0; i < count; i++) {
    const ec = nodes[i * nf + ecs];
    const owner = nodeName(i);
    for (let j = 0; j < ec; j++, e += ef) {
      const et = edgeTypes[edges[e + eType]];
      const to = edges[e + eTo] / nf;
      if (et !== 'weak' && et !== 'shortcut' && !parent.has(to)) parent.set(to, [i, et === 'element' || et === 'hidden' ? `[${edges[e + eName]}]` : String(strings[edges[e + eName]])]);
      if (et !== 'weak' && et !== 'shortcut' && (!heldBy.has(to) || (et === 'property' && !heldBy.get(to).includes('.')))) {
        heldBy.set(to, et === 'property' || et === 'internal' || et === 'context' ? `${owner}.${strings[edges[e + eName]]}` : `${owner}[${et}]`);
      }
      if (et === 'internal' || et === 'hidden') {
        const s = nodes[edges[e + eTo] + selfs];
        retained.set(i, (retained.get(i) ?? nodes[i * nf + selfs]) + s);
      }
    }
  }
  const holders = new Map();
  for (let i = 0; i < count; i++) {
    const kind = nodeName(i);
    const self = nodes[i * nf + selfs];
    const k = byKind.get(kind) ?? { bytes: 0, n: 0 };
    k.bytes += self; k.n++;
    byKind.set(kind, k);
    const r = retained.get(i) ?? self;
    if (r > 64 * 1024 && (kind === 'Map' || kind === 'Set' || kind === 'Array' || kind === '(array)' || kind === 'Object')) {
      let path = '', at = i;
      for (let d = 0; d < 6 && parent.has(at); d++) { const [p, label] = parent.get(at); path = `${nodeName(p)}.${label} ← ` + path; at = p; }
      const key = `${kind} ${path} #${nodes[i * nf + ids]}`;
      holders.set(key, r);
    }
  }
  return { byKind, holders, total: [...byKind.values()].reduce((a, k) => a + k.bytes, 0) };
}

const [a, b] = process.argv.slice(2).map(load);
const mb = (x) => (x / 1048576).toFixed(2);
console.log(`total self bytes: ${mb(a.total)} → ${mb(b.total)} MiB`);
const rows = [...b.byKind].map(([kind, k]) => { const o = a.byKind.get(kind) ?? { bytes: 0, n: 0 }; return { kind, d: k.bytes - o.bytes, dn: k.n - o.n, bytes: k.bytes, n: k.n }; });
rows.sort((x, y) => y.d - x.d);
console.log('\ngrowth by kind (MiB, count):');
for (const r of rows.slice(0, 30)) console.log(`${mb(r.d).padStart(8)} ${String(r.dn).padStart(9)}  ${r.kind}  (now ${mb(r.bytes)} MiB, ${r.n})`);
console.log('\nlargest containers at the end (own size incl. backing store, MiB):');
for (const [k, v] of [...b.holders].sort((x, y) => y[1] - x[1]).slice(0, 30)) console.log(`${mb(v).padStart(8)}  ${k}`);
