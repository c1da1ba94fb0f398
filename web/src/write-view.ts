/**
 * Writing data: JSON-LD insert, Turtle insert or SPARQL UPDATE / JSON-LD update, with the receipt
 * (t, commit, flakes added/retracted) or the server's error `@type` and message beside the editor.
 */
import { call, describe, ledgerPath } from './api.js';
import { h, mount } from './dom.js';
import type { EditorLang } from './editor.js';
import { lazyEditor } from './lazy-editor.js';
import type { Shell } from './main.js';

interface Mode { label: string; path: 'insert' | 'upsert' | 'update'; type: string; lang: EditorLang; sample: string }

const MODES: Record<string, Mode> = {
  jsonld: { label: 'Insert JSON-LD', path: 'insert', type: 'application/ld+json', lang: 'json',
    sample: JSON.stringify({ '@context': { ex: 'http://example.org/' }, '@graph': [{ '@id': 'ex:alice', '@type': 'ex:Person', 'ex:name': 'Alice' }] }, null, 2) },
  turtle: { label: 'Insert Turtle', path: 'insert', type: 'text/turtle', lang: 'turtle',
    sample: '@prefix ex: <http://example.org/> .\n\nex:alice a ex:Person ;\n  ex:name "Alice" .\n' },
  upsert: { label: 'Upsert JSON-LD', path: 'upsert', type: 'application/ld+json', lang: 'json',
    sample: JSON.stringify({ '@context': { ex: 'http://example.org/' }, '@id': 'ex:alice', 'ex:name': 'Alice Smith' }, null, 2) },
  sparql: { label: 'SPARQL UPDATE', path: 'update', type: 'application/sparql-update', lang: 'sparql',
    sample: 'PREFIX ex: <http://example.org/>\nINSERT DATA { ex:bob a ex:Person ; ex:name "Bob" }' },
};

/** Render the write screen for `ledger`; returns the teardown. */
export function renderWrite(ctx: { shell: Shell; main: HTMLElement }, ledger: string): () => void {
  const { shell, main } = ctx;
  let mode = MODES.jsonld!;
  const out = h('div', { className: 'receipt', role: 'status', 'aria-live': 'polite' });
  const host = h('div', { className: 'editor' });
  const editor = lazyEditor(host, { doc: mode.sample, lang: mode.lang, label: 'Data editor', onRun: () => void send() });
  const modeSel = h('select', { id: 'w-mode', onchange: () => {
    const next = MODES[modeSel.value]!;
    if (editor.text === mode.sample) editor.text = next.sample;
    mode = next;
    editor.setLang(mode.lang);
  } }, Object.entries(MODES).map(([k, m]) => h('option', { value: k }, m.label)));
  const sendBtn = h('button', { type: 'button', className: 'primary', onclick: () => void send() }, 'Commit');

  async function send(): Promise<void> {
    sendBtn.disabled = true;
    mount(out, h('p', { className: 'muted' }, 'Committing…'));
    try {
      const r = await call(`/${mode.path}/${ledgerPath(ledger)}`, { method: 'POST', body: editor.text, headers: { 'Content-Type': mode.type } });
      const receipt = await r.json() as { t: number; commit_id: string; flakes_added: number; flakes_retracted: number; timestamp?: string };
      mount(out, h('div', { className: 'ok' },
        h('h2', {}, `Committed t ${receipt.t}`),
        h('dl', { className: 'commit-meta' },
          h('dt', {}, 'Added'), h('dd', {}, String(receipt.flakes_added)),
          h('dt', {}, 'Retracted'), h('dd', {}, String(receipt.flakes_retracted)),
          h('dt', {}, 'Commit'), h('dd', {}, h('code', {}, receipt.commit_id))),
        h('a', { href: `#/l/${encodeURIComponent(ledger)}/log/${encodeURIComponent(`t:${receipt.t}`)}` }, 'Open this commit')));
      await shell.refreshLedgers();
    } catch (e) {
      const d = describe(e);
      mount(out, h('div', { className: 'error', role: 'alert' }, h('strong', { className: 'err-type' }, d.type), h('p', {}, d.message)));
    } finally {
      sendBtn.disabled = false;
    }
  }

  mount(main,
    h('h1', {}, `${ledger} · write`),
    h('div', { className: 'toolbar' }, h('label', { for: 'w-mode' }, 'Kind'), modeSel, sendBtn, h('span', { className: 'muted hint' }, 'Ctrl-Enter commits')),
    h('div', { className: 'write-grid' }, host, out),
  );
  return () => editor.destroy();
}
