import type { FalClient } from '@fal-ai/client';
import { asText, assetIds, many, NodeFailure, type NodeContext } from '@weft/nodes';
import fs from 'node:fs';
import type { FalTypeMapping, ParamMapping } from './fal-models';
import { abortable } from './fal-wait';

// A node's inputs and params as the input of a fal app: media uploaded to fal
// storage (the app reads them by URL; our own presigned URLs may be internal),
// text as it is, params converted as the type's mapping says, and
// params.options under them all.

/** fal's presets of image_size, by the aspect ratio they have. */
const IMAGE_SIZE_PRESETS: Record<string, string> = {
  '1:1': 'square_hd',
  '4:3': 'landscape_4_3',
  '3:4': 'portrait_4_3',
  '16:9': 'landscape_16_9',
  '9:16': 'portrait_16_9',
};

/** About a megapixel, as fal's presets are; sides in multiples of 16, as diffusion models want. */
function sizeOf(ratio: string): { width: number; height: number } {
  const [w, h] = ratio.split(':').map(Number) as [number, number];
  const scale = Math.sqrt((1024 * 1024) / (w * h));
  const side = (n: number) => Math.max(16, Math.round((n * scale) / 16) * 16);
  return { width: side(w), height: side(h) };
}

const CONVERSIONS: Record<ParamMapping, (value: unknown) => Record<string, unknown>> = {
  num_images: (count) => ({ num_images: count }),
  image_size: (ratio) => ({ image_size: IMAGE_SIZE_PRESETS[ratio as string] ?? sizeOf(ratio as string) }),
  aspect_ratio: (ratio) => ({ aspect_ratio: ratio }),
  loras: (loras) => ({
    loras: (loras as { url: string; scale?: number }[]).map((l) => ({ path: l.url, scale: l.scale ?? 1 })),
  }),
  duration_text: (seconds) => ({ duration: String(Math.round(seconds as number)) }),
  music_length_ms: (seconds) => ({ music_length_ms: Math.round((seconds as number) * 1000) }),
  upscale_factor: (factor) => ({ upscale_factor: factor }),
};

/** Whether the node links something to `port`. */
export const linked = (ctx: NodeContext, port: string) => many(ctx, port).length > 0;

/** The app a node runs on: the route's, or the default's variant for the ports the node links. */
export function appFor(ctx: NodeContext, mapping: FalTypeMapping, model: string): string {
  if (model !== mapping.defaultModel) return model;
  const variant = mapping.variants?.find((v) =>
    'param' in v ? ctx.params[v.param] !== undefined : 'linked' in v ? linked(ctx, v.linked) : !linked(ctx, v.unlinked),
  );
  return variant?.model ?? model;
}

/** Uploads the asset to fal storage: the URL the app reads it from. */
async function uploaded(ctx: NodeContext, client: FalClient, assetId: string): Promise<string> {
  const asset = await ctx.assets.download(assetId, ctx.signal);
  const blob = await fs.openAsBlob(asset.path, { type: asset.contentType });
  const file = new File([blob], asset.filename, { type: asset.contentType });
  // The SDK's upload takes no signal: a cancelled node stops waiting for it.
  return abortable(client.storage.upload(file), ctx.signal);
}

/** The input of the app for this node, its files uploaded. */
export async function falInput(
  ctx: NodeContext,
  client: FalClient,
  mapping: FalTypeMapping,
): Promise<Record<string, unknown>> {
  const input: Record<string, unknown> = {};
  for (const [port, field] of Object.entries(mapping.texts ?? {})) {
    const values = many(ctx, port);
    if (values.length === 0) continue;
    const text = values.map(asText).join('\n');
    if (text.trim() === '') {
      throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the text at input '${port}' is empty`);
    }
    input[field] = text;
  }
  if (ctx.nodeType === 'image_erase' && !linked(ctx, 'mask') && input.prompt === undefined) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}': give a mask at 'mask' or say what to erase at 'prompt'`,
    );
  }
  for (const [port, field] of Object.entries(mapping.files ?? {})) {
    const ids = many(ctx, port).flatMap((v) => assetIds(ctx, v));
    if (ids.length === 0) continue;
    const list = field.endsWith('[]');
    if (!list && ids.length > 1) {
      throw new NodeFailure(
        'invalid_input',
        `Node '${ctx.nodeId}': the provider takes one file at input '${port}', not ${ids.length}`,
      );
    }
    const urls: string[] = [];
    for (const id of ids) urls.push(await uploaded(ctx, client, id));
    input[list ? field.slice(0, -2) : field] = list ? urls : urls[0];
  }
  for (const [param, mappingName] of Object.entries(mapping.params ?? {})) {
    const value = ctx.params[param];
    if (value !== undefined) Object.assign(input, CONVERSIONS[mappingName](value));
  }
  const options = (ctx.params.options ?? {}) as Record<string, unknown>;
  // Provider-specific settings under the node's own: what the node says wins.
  return { ...options, ...input };
}
