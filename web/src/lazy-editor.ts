/**
 * A code editor whose CodeMirror chunk loads on demand: the handle works at once (text and
 * language are kept until the editor exists), so views render before the editor code arrives and
 * the first page load carries no editor at all.
 */
import type { EditorLang } from './editor.js';

/** The editor as the views use it. */
export interface EditorHandle {
  text: string;
  setLang(l: EditorLang): void;
  focus(): void;
  destroy(): void;
  /** Resolves when the CodeMirror editor is in the page. */
  ready: Promise<void>;
}

type EditorModule = typeof import('./editor.js');
let loading: Promise<EditorModule> | null = null;

/** The editor module (one fetch, shared by every editor). */
export function editorModule(): Promise<EditorModule> {
  loading ??= import('./editor.js');
  return loading;
}

/** An editor in `parent`; `onRun` is called on Ctrl/Cmd-Enter. */
export function lazyEditor(parent: HTMLElement, opts: { doc: string; lang: EditorLang; label: string; onRun: () => void }): EditorHandle {
  let text = opts.doc;
  let lang = opts.lang;
  let destroyed = false;
  let real: ReturnType<EditorModule['createEditor']> | null = null;
  const placeholder = document.createElement('p');
  placeholder.className = 'muted';
  placeholder.textContent = 'Loading the editor…';
  parent.append(placeholder);
  const ready = editorModule().then((m) => {
    placeholder.remove();
    if (destroyed) return;
    real = m.createEditor(parent, { doc: text, lang, label: opts.label, onRun: opts.onRun });
  });
  return {
    get text() { return real ? real.text : text; },
    set text(t: string) { if (real) real.text = t; else text = t; },
    setLang(l) { if (real) real.setLang(l); else lang = l; },
    focus() { if (real) real.focus(); else void ready.then(() => real?.focus()); },
    destroy() { destroyed = true; real?.view.destroy(); },
    ready,
  };
}
