import type { NodeContext, ProducedFile } from './types';

/**
 * One result per input asset, in order, each stored as soon as it is made so
 * that no more than one result is held (in memory or the work dir) at a time.
 */
export async function storeEach(
  ctx: NodeContext,
  ids: readonly string[],
  make: (id: string, index: number) => Promise<ProducedFile>,
): Promise<string[]> {
  const produced: string[] = [];
  for (const [index, id] of ids.entries()) {
    const file = await make(id, index);
    ctx.signal.throwIfAborted();
    produced.push(await ctx.assets.store(file, index, ctx.signal));
  }
  return produced;
}
