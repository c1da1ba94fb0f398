/**
 * The code editor: CodeMirror 6 with its basic setup (line numbers, bracket matching, completion,
 * history), SPARQL highlighting from codemirror-lang-sparql (also used for Turtle, whose terms it
 * shares), JSON for JSON-LD, GraphQL and Cypher stream modes (lang-modes.ts), keyword / prefix /
 * vocabulary completion per language, and Ctrl/Cmd-Enter to run. Loaded on demand (lazy-editor.ts).
 */
import { EditorView, basicSetup } from 'codemirror';
import { Compartment, Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { json } from '@codemirror/lang-json';
import { sparql } from 'codemirror-lang-sparql';
import { CYPHER_KEYWORDS, GRAPHQL_KEYWORDS, cypherLanguage, graphqlLanguage } from './lang-modes.js';
import { closeCompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';

/** Languages the editors speak. */
export type EditorLang = 'sparql' | 'json' | 'turtle' | 'graphql' | 'cypher';

const KEYWORDS = ['SELECT', 'CONSTRUCT', 'DESCRIBE', 'ASK', 'WHERE', 'FILTER', 'OPTIONAL', 'UNION', 'MINUS', 'GRAPH', 'BIND',
  'VALUES', 'PREFIX', 'BASE', 'DISTINCT', 'REDUCED', 'ORDER BY', 'GROUP BY', 'HAVING', 'LIMIT', 'OFFSET', 'COUNT', 'SUM', 'AVG',
  'MIN', 'MAX', 'SAMPLE', 'GROUP_CONCAT', 'INSERT DATA', 'DELETE DATA', 'INSERT', 'DELETE', 'WITH', 'FROM', 'FROM NAMED',
  'SERVICE', 'EXISTS', 'NOT EXISTS', 'STR', 'LANG', 'REGEX', 'CONTAINS', 'STRSTARTS', 'IRI', 'BOUND', 'IF', 'COALESCE'];
const PREFIXES: Record<string, string> = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#', rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#', owl: 'http://www.w3.org/2002/07/owl#', schema: 'http://schema.org/',
  foaf: 'http://xmlns.com/foaf/0.1/', f: 'https://ns.ledgraph.dev/',
};

/** Extra words to complete (the ledger's own class and property IRIs), set per ledger. */
let ledgerWords: string[] = [];
/** GraphQL type and field names of the ledger's schema (from its SDL). */
let schemaWords: string[] = [];
/** Offer the ledger's class and property IRIs in completion. */
export function setCompletionWords(words: string[]): void { ledgerWords = words; }
/** Offer the ledger's GraphQL type and field names in GraphQL completion. */
export function setSchemaWords(words: string[]): void { schemaWords = words; }

const localName = (iri: string) => /[#/:]([^#/:]+)$/.exec(iri)?.[1] ?? iri;

function completeGraphql(ctx: CompletionContext): CompletionResult | null {
  const word = ctx.matchBefore(/\w+/);
  if (!word || (word.from === word.to && !ctx.explicit)) return null;
  return { from: word.from, options: [...GRAPHQL_KEYWORDS.map((k) => ({ label: k, type: 'keyword' })), ...schemaWords.map((w) => ({ label: w, type: /^[A-Z]/.test(w) ? 'type' : 'property' }))] };
}

function completeCypher(ctx: CompletionContext): CompletionResult | null {
  const word = ctx.matchBefore(/\w+/);
  if (!word || (word.from === word.to && !ctx.explicit)) return null;
  const names = [...new Set(ledgerWords.map(localName))];
  return { from: word.from, options: [...CYPHER_KEYWORDS.map((k) => ({ label: k, type: 'keyword' })), ...names.map((w) => ({ label: w, type: 'property' }))] };
}

function complete(ctx: CompletionContext): CompletionResult | null {
  const word = ctx.matchBefore(/[<\w:#/.-]+/);
  if (!word || (word.from === word.to && !ctx.explicit)) return null;
  return {
    from: word.from,
    options: [
      ...KEYWORDS.map((k) => ({ label: k, type: 'keyword' })),
      ...Object.entries(PREFIXES).map(([p, iri]) => ({ label: `PREFIX ${p}: <${iri}>`, type: 'namespace' })),
      ...ledgerWords.map((w) => ({ label: `<${w}>`, type: 'property' })),
    ],
  };
}

function language(lang: EditorLang) {
  if (lang === 'json') return json();
  if (lang === 'graphql') return [graphqlLanguage, graphqlLanguage.data.of({ autocomplete: completeGraphql })];
  if (lang === 'cypher') return [cypherLanguage, cypherLanguage.data.of({ autocomplete: completeCypher })];
  const s = sparql();
  return [s, s.language.data.of({ autocomplete: complete })];
}

/** An editor in `parent`; `onRun` is called on Ctrl/Cmd-Enter. */
export function createEditor(parent: HTMLElement, opts: { doc: string; lang: EditorLang; label: string; onRun: () => void }) {
  const lang = new Compartment();
  const view = new EditorView({
    parent,
    doc: opts.doc,
    extensions: [
      Prec.highest(keymap.of([{ key: 'Mod-Enter', run: (v) => { closeCompletion(v); opts.onRun(); return true; } }])),
      basicSetup,
      lang.of(language(opts.lang)),
      EditorView.contentAttributes.of({ 'aria-label': opts.label }),
      EditorView.lineWrapping,
    ],
  });
  return {
    view,
    get text(): string { return view.state.doc.toString(); },
    set text(t: string) { view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } }); },
    setLang(l: EditorLang) { view.dispatch({ effects: lang.reconfigure(language(l)) }); },
    focus() { view.focus(); },
  };
}

/** An editor handle. */
export type Editor = ReturnType<typeof createEditor>;
