import { z } from 'zod';
import { defineNode } from '../definition';
import { textPort } from '../ports';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { asText, single } from '../values';

/** The text of `inputs.text` split on `params.separator` (default newline), empty parts dropped. */
export const textSplit = defineNode({
  type: 'text_split',
  description: 'The text at `text` split on params.separator, parts trimmed and empty ones dropped: a list of text.',
  serving: 'built_in',
  inputs: { text: textPort('The text to split') },
  params: z.object({ separator: z.string().default('\n').describe('Where to split; empty means a newline') }),
  output: { kinds: ['data'] },
  lane: 'light',
  instant: true,
  rerun: 'same',
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const separator = ctx.params.separator || '\n';
    const parts = asText(single(ctx, 'text'))
      .split(separator)
      .map((part) => part.trim())
      .filter((part) => part.length > 0);
    return { output: { type: 'data', value: parts } };
  },
});
