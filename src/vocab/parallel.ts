/**
 * Runs `work` over `items` with at most `limit` in flight: enough to overlap I/O and zlib. The
 * first failure stops new work and is thrown once the work in flight has settled: a caller never
 * returns while writes it started are still going (a full disk failed one chunk while seven
 * others still held their temp files, and the command had already answered).
 */
export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === null) {
      const i = next++;
      try {
        await work(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}

export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  await forEachLimited(items, limit, async (item, i) => {
    out[i] = await work(item);
  });
  return out;
}
