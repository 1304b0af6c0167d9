import fs from 'node:fs';
import { asText, assetIds, many, NodeFailure, type NodeContext } from '@weft/nodes';

// Ports as a Replicate model's input. Files are given to the SDK as Blobs: it
// uploads them through Replicate's files API and sends their URLs (our own
// presigned URLs may be internal to the deployment).

/** The text at `port` (several values joined by blank lines); an optional port's empty text is undefined. */
export function textOf(ctx: NodeContext, port: string, required = true): string | undefined {
  const text = many(ctx, port)
    .map(asText)
    .filter((t) => t.trim() !== '')
    .join('\n\n');
  if (text !== '') return text;
  if (!required) return undefined;
  throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the text at input '${port}' is empty`);
}

/** The ids of the assets at `port`. */
const idsAt = (ctx: NodeContext, port: string) => many(ctx, port).flatMap((v) => assetIds(ctx, v));

/**
 * The one file at `port` as a Blob read from disk (videos and recordings may
 * be large); undefined when the optional port is not linked.
 */
export async function fileOf(ctx: NodeContext, port: string, required = true): Promise<Blob | undefined> {
  const ids = idsAt(ctx, port);
  if (ids.length === 0 && !required) return undefined;
  if (ids.length !== 1) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}': the model takes one file at input '${port}' (${ids.length} given)`,
    );
  }
  const file = await ctx.assets.download(ids[0]!, ctx.signal);
  return fs.openAsBlob(file.path, { type: file.contentType });
}

/** `options` first: the node's own params win over them. */
export function withOptions(ctx: NodeContext, input: Record<string, unknown>): Record<string, unknown> {
  const options = (ctx.params as { options?: Record<string, unknown> }).options ?? {};
  const own = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  return { ...options, ...own };
}
