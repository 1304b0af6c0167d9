import { z } from 'zod';
import { defineNode } from '../definition';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';

/** The run's input string; when the optional input was omitted, `params.default` or ''. */
export const textInput = defineNode({
  type: 'text_input',
  description: 'A text given when the run is created; when optional and not given, params.default or empty.',
  serving: 'built_in',
  runInput: 'text',
  inputs: {},
  params: z.object({ default: z.string().default('').describe('The value when the optional input is not given') }),
  output: { kinds: ['text'] },
  lane: 'light',
  instant: true,
  rerun: 'same',
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const given = ctx.runInput;
    // App inputs with options may carry several selected labels: they read as one comma-separated text.
    if (Array.isArray(given)) return { output: { type: 'text', value: given.map(String).join(', ') } };
    if (typeof given === 'string') return { output: { type: 'text', value: given } };
    return { output: { type: 'text', value: ctx.params.default } };
  },
});
