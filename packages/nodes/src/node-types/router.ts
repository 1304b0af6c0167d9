import { z } from 'zod';
import { ANY_KIND, defineNode } from '../definition';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { notBuiltYet } from './pending';

const portName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, { error: 'a route port is a name of letters, digits, _ and -' });

const condition = z.union([
  z.strictObject({ equals: z.unknown() }),
  z.strictObject({ contains: z.string() }),
  z.strictObject({ matches: z.string().max(1000) }),
  z.strictObject({ path: z.string().min(1), equals: z.unknown() }),
]);

/** Passes `inputs.value` to the first route whose condition holds; the others' downstream nodes end skipped. */
export const router = defineNode({
  type: 'router',
  description:
    'Passes the value at `value` to the first route of params.routes whose condition holds (or params.default_port); ' +
    'downstream nodes reachable only through routes not taken end skipped. Refer to a route as `<node id>.<port>`.',
  serving: 'built_in',
  inputs: { value: { accepts: ANY_KIND, required: true, many: false, description: 'The value to route' } },
  params: z.object({
    routes: z
      .array(z.strictObject({ port: portName, when: condition }))
      .min(1)
      .describe('Evaluated in order: {port, when: {equals} | {contains} | {matches} | {path, equals}}'),
    default_port: portName.optional().describe('Taken when no route matches; without it the value goes nowhere'),
  }),
  output: { sameAs: 'value' },
  lane: 'light',
  instant: true,
  rerun: 'same',
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  execute: notBuiltYet('router'),
});
