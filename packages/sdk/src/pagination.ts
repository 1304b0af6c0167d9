// Lists answer one page at a time and say where the next begins
// (docs/api.md#pagination); these iterate over every item, page after page.

export interface CursorPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Every item of every page, fetching the next page only when the caller gets there. */
export async function* paginate<T>(
  fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.data;
    if (!page.has_more || page.next_cursor === null) return;
    cursor = page.next_cursor;
  }
}

/** Collects an async iterable into an array (for short lists, or with `limit`). */
export async function toArray<T>(items: AsyncIterable<T>, limit = Infinity): Promise<T[]> {
  const out: T[] = [];
  if (limit <= 0) return out;
  for await (const item of items) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}
