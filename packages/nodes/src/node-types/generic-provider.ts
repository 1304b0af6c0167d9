import { DATA_TYPES, MAX_CREDITS, type DataType } from '@weft/contracts';
import { z } from 'zod';
import { ANY_KIND, defineNode } from '../definition';
import { parseAllowList } from '../outbound/address-policy';
import { guardedRequest, RefusedDestinationError } from '../outbound/guarded-request';
import { NodeFailure, type NodeContext, type NodeValue } from '../types';
import { PROVIDER_MAX_TIMEOUT_MS } from '../timeouts';

const COST_RANGE = `cost must be a whole number of credits from 0 to ${MAX_CREDITS}`;

const DATA_TYPE_SET: ReadonlySet<string> = new Set(DATA_TYPES);

/** The plain values of the node's ports: what the provider receives. */
function plainInputs(ctx: NodeContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [port, value] of Object.entries(ctx.inputs)) {
    out[port] = Array.isArray(value) ? value.map((v) => v.value) : value.value;
  }
  return out;
}

function parseResult(ctx: NodeContext, body: Buffer): NodeValue {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new NodeFailure('provider_error', `Provider of node '${ctx.nodeId}' answered with invalid JSON`);
  }
  const result = json as { type?: unknown; value?: unknown } | null;
  if (!result || typeof result !== 'object' || typeof result.type !== 'string' || !DATA_TYPE_SET.has(result.type)) {
    throw new NodeFailure('provider_error', `Provider of node '${ctx.nodeId}' answered without a valid {type, value}`);
  }
  return { type: result.type as DataType, value: result.value ?? null };
}

function errorCode(body: Buffer): unknown {
  try {
    return (JSON.parse(body.toString('utf8')) as { error?: unknown }).error;
  } catch {
    return undefined;
  }
}

/**
 * HTTP POST `params.url` with `{run_id, node_id, inputs}`; a 2xx `{type, value}`
 * is the result. Statuses map to failure reasons (docs/api.md#failure-reasons):
 * 401/403 provider_auth_required, a 4xx with `{"error": "content_policy"}`
 * content_policy, another 4xx invalid_input, a 5xx or no connection
 * provider_error. `params.cost` (credits, default 0) is charged for each
 * successful call.
 */
export const genericProvider = defineNode({
  type: 'generic_provider',
  description:
    'POSTs {run_id, node_id, inputs} to params.url; a 2xx {type, value} is the result. Takes ports of any name.',
  serving: 'built_in',
  inputs: {},
  otherInputs: { accepts: ANY_KIND, required: false, many: true, description: 'Passed to the provider under its name' },
  params: z.object({
    url: z
      .string({ error: 'params.url must be an http(s) URL' })
      .regex(/^https?:\/\//i, { error: 'params.url must be an http(s) URL' })
      .describe('Where to POST; outbound rules apply (OUTBOUND_ALLOWED_HOSTS)'),
    cost: z
      .number({ error: COST_RANGE })
      .int({ error: COST_RANGE })
      .min(0, { error: COST_RANGE })
      .max(MAX_CREDITS, { error: COST_RANGE })
      .nullable()
      .default(0)
      .describe('Credits charged for each successful call'),
  }),
  output: { kinds: ANY_KIND },
  lane: 'light',
  rerun: 'new',
  defaultTimeoutMs: 30_000,
  maxTimeoutMs: PROVIDER_MAX_TIMEOUT_MS,
  estimateCost: (params) => params.cost ?? 0,
  async execute(ctx) {
    const { url } = ctx.params;
    const cost = ctx.params.cost ?? 0;
    let res;
    try {
      res = await guardedRequest({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: Buffer.from(JSON.stringify({ run_id: ctx.runId, node_id: ctx.nodeId, inputs: plainInputs(ctx) })),
        allow: parseAllowList(ctx.outboundAllowList),
        signal: ctx.signal,
      });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (err instanceof RefusedDestinationError) {
        throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': refused destination: ${err.message}`);
      }
      throw new NodeFailure('provider_error', `Provider of node '${ctx.nodeId}' could not be reached`);
    }
    const { status } = res;
    if (status >= 200 && status < 300) return { output: parseResult(ctx, res.body), cost };
    if (status === 401 || status === 403) {
      throw new NodeFailure(
        'provider_auth_required',
        `Provider of node '${ctx.nodeId}' refused the credentials (${status})`,
      );
    }
    if (status >= 400 && status < 500) {
      if (errorCode(res.body) === 'content_policy') {
        throw new NodeFailure(
          'content_policy',
          `Provider of node '${ctx.nodeId}' refused the content (content policy)`,
        );
      }
      throw new NodeFailure('invalid_input', `Provider of node '${ctx.nodeId}' rejected the request (${status})`);
    }
    throw new NodeFailure('provider_error', `Provider of node '${ctx.nodeId}' failed (${status})`);
  },
});
