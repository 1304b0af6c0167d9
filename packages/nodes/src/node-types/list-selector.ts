import type { DataType } from '@weft/contracts';
import { z } from 'zod';
import { ANY_KIND, defineNode } from '../definition';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure } from '../types';
import { asList, isAssetValue, single } from '../values';

/** Element `params.index` (0-based) of the list at `inputs.list`. */
export const listSelector = defineNode({
  type: 'list_selector',
  description:
    'Element params.index (0-based) of the list at `list`: an asset list gives a list of that one asset; ' +
    'out of range fails with invalid_input.',
  serving: 'built_in',
  inputs: { list: { accepts: ANY_KIND, required: true, many: false, description: 'The list to pick from' } },
  params: z.object({ index: z.number().int().min(0).default(0).describe('Position in the list, from 0') }),
  output: { sameAs: 'list', also: ['text', 'data'] },
  lane: 'light',
  instant: true,
  rerun: 'same',
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const { index } = ctx.params;
    const input = single(ctx, 'list');
    const list = asList(input);
    if (index >= list.length) {
      throw new NodeFailure(
        'invalid_input',
        `Node '${ctx.nodeId}': index ${index} is outside the list of ${list.length} item(s)`,
      );
    }
    const item = list[index];
    // An asset list stays an asset list (of one), so downstream media nodes can read it.
    if (isAssetValue(input)) return { output: { type: input.type, value: [item] } };
    const type: DataType = typeof item === 'string' ? 'text' : 'data';
    return { output: { type, value: item } };
  },
});
