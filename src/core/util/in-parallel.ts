/** Bounded concurrency over async work (index leaf writes, dictionary page reads). */

/** Map with at most `limit` promises in flight; results keep the input order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  // Filled, not `new Array(n)`: a holey array would give a first index's leaf lists another
  // hidden class than those of later updates and loaded trees, and the scan's reads of them two.
  const out = Array.from<R>({ length: items.length });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
