import { z } from 'zod';
import { ANY_KIND, defineNode } from '../definition';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { single } from '../values';
import { conditionHolds, patternError } from '../route-conditions';

const portName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, { error: 'a route port is a name of letters, digits, _ and -' });

const pattern = z
  .string()
  .max(1000)
  .superRefine((value, ctx) => {
    const error = patternError(value);
    if (error) ctx.addIssue({ code: 'custom', message: `not an RE2 regular expression: ${error}` });
  });

const condition = z.union([
  z.strictObject({ equals: z.unknown() }),
  z.strictObject({ contains: z.string() }),
  z.strictObject({ matches: pattern }),
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
      .describe(
        'Evaluated in order: {port, when: {equals} | {contains} | {matches} | {path, equals}}. ' +
          '`equals`: the whole value, JSON-equal; `contains`: a substring of the text, or an element of the list; ' +
          '`matches`: an RE2 regular expression found in the text (`(?i)` for any case); ' +
          '`path` + `equals`: the property at the dotted path of the data (`a.b.0`)',
      ),
    default_port: portName.optional().describe('Taken when no route matches; without it the value goes nowhere'),
  }),
  output: { sameAs: 'value' },
  outputPorts: ({ routes, default_port }) => [
    ...routes.map((route) => route.port),
    ...(default_port === undefined ? [] : [default_port]),
  ],
  lane: 'light',
  instant: true,
  rerun: 'same',
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const input = single(ctx, 'value');
    const route = ctx.params.routes.find(({ when }) => conditionHolds(ctx.nodeId, when, input));
    const port = route?.port ?? ctx.params.default_port;
    // No route taken: the value goes nowhere, and every node only the routes lead to is skipped.
    if (port === undefined) return { output: { type: input.type, value: null }, ports: [] };
    return { output: { type: input.type, value: input.value }, ports: [port] };
  },
});
