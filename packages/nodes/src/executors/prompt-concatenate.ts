import type { NodeExecutor } from '../types';
import { asText, many, stringParam } from '../values';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';

/** The text of `inputs.parts` joined with `params.separator` (default one space). */
export const promptConcatenate: NodeExecutor = {
  type: 'prompt_concatenate',
  kind: 'light',
  instant: true,
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  async execute(ctx) {
    const separator = stringParam(ctx, 'separator', ' ');
    const text = many(ctx, 'parts').map(asText).join(separator);
    return { output: { type: 'text', value: text } };
  },
};
