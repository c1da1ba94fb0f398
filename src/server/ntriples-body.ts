/**
 * An N-Triples request body read line by line as it arrives, with the bulk load's line reader
 * (rdf/ntriples.ts, checked against the W3C suites) instead of n3's TriG parser: the statements
 * become the transaction's quads straight from their keys, without n3's term objects and their
 * conversion. It reads only plain N-Triples; the first line it cannot read (Turtle written as
 * N-Triples, a relative IRI, a syntax error) hands the whole body back to the n3 path
 * (rdf-body.ts), so what is accepted, how it is read and every error stay those of n3's parse.
 */
import { readNTriplesLine } from '../core/rdf/ntriples.js';
import { defaultGraph, type BlankNode, type NamedNode, type Term } from '../core/rdf/terms.js';
import type { TxnQuad } from '../core/transact/txn-request.js';
import { rdf } from '../core/rdf/vocab.js';

const LANG_STRING = rdf.langString;
/** The longest line (in UTF-16 units) the line reader waits for; longer ones go to n3. */
const MAX_LINE_CHARS = 1 << 20;
const DIR_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString';

/** Statements of a plain N-Triples body, or `failed` once a line is not plain N-Triples. */
export class NTriplesBody {
  readonly quads: TxnQuad[] = [];
  failed = false;
  /** The pieces of a line not yet ended by a newline. */
  private pending: string[] = [];
  private pendingChars = 0;
  private lineNo = 0;
  private lastS = '';
  private lastSubject: NamedNode | BlankNode | null = null;
  private readonly iris = new Map<string, NamedNode>();

  /** Read the complete lines of the next piece of text (false: not plain N-Triples, stop feeding). */
  feed(text: string): boolean {
    if (this.failed) return false;
    let start = 0;
    try {
      let nl = text.indexOf('\n');
      if (nl >= 0 && this.pendingChars > 0) {
        // The line begun in earlier pieces ends here: the pieces are joined once, never rescanned.
        this.pending.push(text.slice(0, nl));
        const line = this.pending.join('');
        this.pending = [];
        this.pendingChars = 0;
        this.line(line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line);
        start = nl + 1;
      }
      for (;;) {
        nl = text.indexOf('\n', start);
        if (nl < 0) break;
        this.line(text.charCodeAt(nl - 1) === 13 && nl > start ? text.slice(start, nl - 1) : text.slice(start, nl));
        start = nl + 1;
      }
    } catch {
      return this.fail();
    }
    if (start < text.length) {
      this.pending.push(text.slice(start));
      this.pendingChars += text.length - start;
      // A line this long is left to n3, so the text of an unfinished line is never held in bulk
      // beside the body's bytes.
      if (this.pendingChars > MAX_LINE_CHARS) return this.fail();
    }
    return true;
  }

  /** The last line (false: not plain N-Triples). */
  end(): boolean {
    if (this.failed) return false;
    const rest = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    try {
      if (rest) this.line(rest);
    } catch {
      return this.fail();
    }
    return true;
  }

  private fail(): false {
    this.failed = true;
    this.quads.length = 0;
    this.pending = [];
    this.pendingChars = 0;
    return false;
  }

  private line(text: string): void {
    // A bare carriage return ends a line in n3's reading too; the line reader takes only \n.
    if (text.indexOf('\r') >= 0) throw new Error('carriage return inside a line');
    const kq = readNTriplesLine(text, ++this.lineNo, false);
    if (!kq) return;
    let s = this.lastSubject;
    if (s === null || kq.s !== this.lastS) {
      s = this.lastSubject = kq.s.charCodeAt(0) === 95 ? blank(kq.s) : { termType: 'NamedNode', value: kq.s };
      this.lastS = kq.s;
    }
    this.quads.push({ subject: s, predicate: this.iri(kq.p), object: this.object(kq.o), graph: defaultGraph });
  }

  /** An IRI that repeats (predicates, datatypes): one term per distinct IRI of the body, up to a bound. */
  private iri(v: string): NamedNode {
    let n = this.iris.get(v);
    if (n === undefined) {
      n = { termType: 'NamedNode', value: v };
      if (this.iris.size < 4096) this.iris.set(v, n);
    }
    return n;
  }

  private object(key: string): Term {
    const c = key.charCodeAt(0);
    if (c === 34 /* " */) {
      const a = key.indexOf('|');
      const b = key.indexOf('|', a + 1);
      // n3 refuses rdf:langString and rdf:dirLangString written as datatypes: its error is the answer.
      const dt = key.slice(1, a);
      if (a + 1 === b && (dt === LANG_STRING || dt === DIR_LANG_STRING)) throw new Error('explicit language-string datatype');
      return { termType: 'Literal', value: key.slice(b + 1), language: key.slice(a + 1, b), datatype: this.iri(dt) };
    }
    if (c === 95 /* _ */) return blank(key);
    return { termType: 'NamedNode', value: key };
  }
}

/** Labels both grammars read alike; others (letters and digits beyond ASCII, where Unicode's classes and Turtle's ranges differ) go to n3. */
const PLAIN_LABEL = /^_:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

function blank(key: string): BlankNode {
  if (!PLAIN_LABEL.test(key)) throw new Error('blank node label for n3');
  return { termType: 'BlankNode', value: key.slice(2) };
}
