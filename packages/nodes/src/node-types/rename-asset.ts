import { z } from 'zod';
import { defineNode } from '../definition';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

/** The assets at `inputs.assets` as new assets named `params.filename`. */
export const renameAsset = defineNode({
  type: 'rename_asset',
  description:
    'The assets at `assets` as new assets whose download filename is params.filename (extension kept; ' +
    '{n} numbers several).',
  serving: 'built_in',
  inputs: {
    assets: {
      accepts: ['images', 'videos', 'audio', 'files'],
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
      .refine((name) => !/[/\\]/.test(name) && ![...name].some((c) => c.charCodeAt(0) < 32), {
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
  execute: notBuiltYet('rename_asset'),
});
