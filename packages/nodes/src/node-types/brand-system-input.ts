import { defineNode } from '../definition';
import { noParams } from '../ports';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

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
  execute: notBuiltYet('brand_system_input'),
});
