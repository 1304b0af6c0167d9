/** The first `n` items of a paginated list (the SDK's lists iterate over every page). */
export async function takePage<T>(items: AsyncGenerator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length >= n) {
      await items.return(undefined);
      break;
    }
  }
  return out;
}
