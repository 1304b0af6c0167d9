import { parseBrand } from '../brand';
import { defineNode } from '../definition';
import { noParams } from '../ports';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure } from '../types';

/** The run's brand: `{name, colors, fonts, logo, tone}`, given as JSON text or an object. */
export const brandSystemInput = defineNode({
  type: 'brand_system_input',
  description:
    'A brand given when the run is created, as an object or JSON text: name, colors (hex strings), ' +
    'fonts and logo (asset ids), tone.',
  serving: 'built_in',
  runInput: 'brand',
  inputs: {},
  params: noParams,
  output: { kinds: ['data'] },
  lane: 'light',
  rerun: 'same',
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    // The gateway checked the brand (and its assets) when the run was created; this
    // check only holds for runs created before it did.
    if (ctx.runInput === undefined) return { output: { type: 'data', value: null } };
    const result = parseBrand(ctx.runInput);
    if ('issues' in result) {
      const [first] = result.issues;
      const where = first!.path.length > 0 ? ` at ${first!.path.join('.')}` : '';
      throw new NodeFailure('invalid_input', `Input '${ctx.nodeId}' is not a valid brand${where}: ${first!.message}`);
    }
    return { output: { type: 'data', value: result.brand } };
  },
});
