import { FILE_DATA_TYPES } from '@weft/contracts';
import { z } from 'zod';
import { defineNode } from '../definition';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { infoAt } from '../port-assets';
import type { NodeContext } from '../types';
import { assetIds, single } from '../values';

/**
 * The download filename of the `n`th asset (from 1): `{n}` replaced, the
 * asset's own extension kept (a name already ending with it is not given it twice).
 */
export function renamed(template: string, n: number, extension: string): string {
  const name = template.replaceAll('{n}', String(n));
  return name.toLowerCase().endsWith(`.${extension.toLowerCase()}`) ? name : `${name}.${extension}`;
}

async function execute(ctx: NodeContext<{ filename: string }>) {
  const input = single(ctx, 'assets');
  const ids = assetIds(ctx, input);
  const produced: string[] = [];
  for (const [index, id] of ids.entries()) {
    const { extension } = await infoAt(ctx, 'assets', id);
    produced.push(await ctx.assets.copy(id, renamed(ctx.params.filename, index + 1, extension), index, ctx.signal));
  }
  return { output: { type: input.type, value: produced } };
}

/** The assets at `inputs.assets` as new assets named `params.filename`. */
export const renameAsset = defineNode({
  type: 'rename_asset',
  description:
    'The assets at `assets` as new assets whose download filename is params.filename (extension kept; ' +
    '{n} numbers several).',
  serving: 'built_in',
  inputs: {
    assets: {
      accepts: FILE_DATA_TYPES,
      required: true,
      many: false,
      description: 'The assets to rename',
    },
  },
  params: z.object({
    filename: z
      .string()
      .min(1)
      .max(200)
      .refine((name) => ![...name].some((c) => c === '/' || c === '\\' || c.charCodeAt(0) < 0x20), {
        error: 'a filename has no slashes or control characters',
      })
      .describe('The new name; the extension is kept, {n} is replaced by 1, 2, ...'),
  }),
  output: { sameAs: 'assets' },
  lane: 'light',
  rerun: 'same',
  defaultTimeoutMs: 60_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute,
});
