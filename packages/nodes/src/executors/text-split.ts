import type { NodeExecutor } from '../types';
import { asText, single, stringParam } from '../values';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';

/** The text of `inputs.text` split on `params.separator` (default newline), empty parts dropped. */
export const textSplit: NodeExecutor = {
  type: 'text_split',
  kind: 'light',
  instant: true,
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  async execute(ctx) {
    const separator = stringParam(ctx, 'separator', '\n') || '\n';
    const parts = asText(single(ctx, 'text'))
      .split(separator)
      .map((part) => part.trim())
      .filter((part) => part.length > 0);
    return { output: { type: 'data', value: parts } };
  },
};
