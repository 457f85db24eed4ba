/**
 * `fn` over `items`, at most `limit` at a time, answers in the items' order. For reads whose number
 * grows with stored data (a type name's versions times shards): one request must not open thousands
 * of queries at once.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  // At least one lane, whatever the limit (0, NaN): an answer of empty slots would be no answer.
  const lanes = Math.min(items.length, Number.isNaN(limit) ? 1 : Math.max(1, Math.floor(limit)));
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    // After a failure the other lanes start nothing new: the whole answer is the failure.
    while (next < items.length && !failed) {
      const i = next++;
      try {
        results[i] = await fn(items[i] as T, i);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}
