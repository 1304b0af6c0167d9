import type { DataType } from '@weft/contracts';
import { NodeFailure, type NodeExecutor } from '../types';
import { asList, intParam, isAssetValue, single } from '../values';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';

/** Element `params.index` (0-based) of the list at `inputs.list`. */
export const listSelector: NodeExecutor = {
  type: 'list_selector',
  kind: 'light',
  instant: true,
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  async execute(ctx) {
    const index = intParam(ctx, 'index', 0);
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
};
