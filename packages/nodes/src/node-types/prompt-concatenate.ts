import { z } from 'zod';
import { defineNode } from '../definition';
import { textsPort } from '../ports';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { asText, many } from '../values';

/** The text of `inputs.parts` joined with `params.separator` (default one space). */
export const promptConcatenate = defineNode({
  type: 'prompt_concatenate',
  description: 'The texts at `parts`, in order, joined with params.separator.',
  serving: 'built_in',
  inputs: { parts: textsPort('The texts to join, in order') },
  params: z.object({ separator: z.string().default(' ').describe('Put between two parts') }),
  output: { kinds: ['text'] },
  lane: 'light',
  instant: true,
  rerun: 'same',
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const text = many(ctx, 'parts').map(asText).join(ctx.params.separator);
    return { output: { type: 'text', value: text } };
  },
});
