import type { NodeExecutor } from '../types';
import { stringParam } from '../values';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';

/** The run's input string; when the optional input was omitted, `params.default` or ''. */
export const textInput: NodeExecutor = {
  type: 'text_input',
  kind: 'light',
  instant: true,
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  async execute(ctx) {
    const given = ctx.runInput;
    // App inputs with options may carry several selected labels: they read as one comma-separated text.
    if (Array.isArray(given)) return { output: { type: 'text', value: given.map(String).join(', ') } };
    if (typeof given === 'string') return { output: { type: 'text', value: given } };
    return { output: { type: 'text', value: stringParam(ctx, 'default', '') } };
  },
};
