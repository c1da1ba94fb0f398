/**
 * Work in steps: a generator that yields (nothing) now and then, so a caller can give the event
 * loop a turn between steps (docs/isolation.md), or `drain` it in one piece. The SPARQL grammar
 * and the translation to the algebra are written this way, so a large query or update text does
 * not hold a server's event loop for the whole parse.
 */
export type Steps<T> = Generator<void, T>;

/** Run steps to their end without pausing. */
export function drain<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
