import { nodeAssets } from '@weft/assets';
import type { RunInput } from '@weft/contracts';
import { carriesValue, type FlowGraph } from '@weft/dag';
import { MediaSourceError } from '@weft/media';
import fs from 'node:fs';
import path from 'node:path';
import {
  definitionOf,
  isInstantNode,
  NodeFailure,
  parseNodeParams,
  timeoutOf,
  type NodeContext,
  type NodeResult,
  type NodeValue,
} from '@weft/nodes';
import type { ExecuteNodeJob } from '@weft/queue';
import type { NodeSettlement } from '../store/commit-transition';
import type { EngineCore } from '../engine-core';
import type { LoadedVersion } from '@weft/catalog';
import { derivedUuid } from '@weft/db';
import { providerJobs, recordCharge } from '../store/provider-jobs';
import type { NodeRow, RunRow } from '../store/run-rows';
import { TransientError } from '@weft/errors';
import { NODE } from '@weft/dag';

/** The run a node executes in: its row, inputs and node rows as the execution sees them. */
export interface ExecutionScope {
  run: RunRow;
  inputs: RunInput[];
  /** By node id; upstream outputs are read from here (rows settled in memory included). */
  nodes: Map<string, NodeRow>;
  version: LoadedVersion;
  /** Aborted when the run is canceled. */
  cancel: AbortSignal;
}

/** The executor was stopped by a cancel, which already ended the run in PostgreSQL: nothing to record. */
export const CANCELED = Symbol('canceled');

export type ExecutorOutcome = NodeSettlement | NodeFailure | typeof CANCELED;

/**
 * Runs the executor of the node `job` names, with its resolved inputs, its
 * params and an AbortSignal (cancel, and the node's timeout unless it is
 * instant), and turns what it returns or throws into the node's settlement or
 * failure. Infrastructure errors (TransientError) are thrown for the queue to retry.
 */
export async function invokeExecutor(
  core: EngineCore,
  scope: ExecutionScope,
  job: ExecuteNodeJob,
): Promise<ExecutorOutcome> {
  const { run } = scope;
  const node = scope.version.graph.node(job.nodeId)!;
  const definition = definitionOf(node.type);
  let params: Record<string, unknown>;
  try {
    params = parseNodeParams(node.type, node.id, node.params);
  } catch (err) {
    return err as NodeFailure;
  }
  const timeoutMs = timeoutOf(node.type, node.params);
  // Instant nodes are synchronous text functions: a timer could not interrupt them, and costs one per node.
  const timeout = isInstantNode(node.type) ? undefined : AbortSignal.timeout(timeoutMs);
  const signal = timeout ? AbortSignal.any([scope.cancel, timeout]) : scope.cancel;
  const work = new WorkDir(core.nodeWorkRoot);
  const attemptKey = { runId: run.id, nodeId: node.id, attempt: job.attempt };
  const deltas = core.deltas.emitter(run.id, node.id);
  const ctx: NodeContext = {
    runId: run.id,
    organizationId: run.organization_id,
    nodeId: node.id,
    nodeType: node.type,
    attempt: job.attempt,
    params,
    inputs: resolveInputs(scope.version.graph, node.id, scope.nodes),
    runInput: scope.inputs.find((i) => i.id === node.id)?.value,
    signal,
    assets: nodeAssets(
      {
        pool: core.db.pool,
        storage: core.requireStorage(),
        urls: core.nodeUrls(),
        assetJobs: core.assetJobs,
        workDir: work.path,
        maxReadBytes: core.maxReadBytes,
      },
      {
        runId: run.id,
        nodeId: node.id,
        attempt: job.attempt,
        organizationId: run.organization_id,
        agentId: run.agent_id,
      },
    ),
    outboundAllowList: core.outboundAllowList,
    imageLimits: core.requireImageLimits(),
    tools: core.mediaTools,
    ...(core.nodeRoutes ? { routes: core.nodeRoutes } : {}),
    workDir: work.path,
    providerJobs: providerJobs(core.db.pool, attemptKey),
    emitDelta: deltas.emit,
  };

  const startedAt = new Date();
  let result: NodeResult;
  try {
    result = await definition.execute(ctx);
  } catch (err) {
    if (scope.cancel.aborted) return CANCELED;
    // The store failed ffmpeg, not the content: retried like any storage failure.
    if (err instanceof TransientError || err instanceof MediaSourceError) throw err;
    if (timeout?.aborted) return new NodeFailure('timeout', `Node '${node.id}' did not finish within ${timeoutMs} ms`);
    return err instanceof NodeFailure ? err : internalFailure(core, node.id, err);
  } finally {
    deltas.flush();
    await work.remove(core);
  }
  if (result.usage)
    await recordCharge(core.db.pool, { ...attemptKey, nodeType: node.type }, result.usage, result.cost ?? 0);
  return {
    nodeId: job.nodeId,
    attempt: job.attempt,
    status: result.review ? NODE.waitingReview : NODE.completed,
    output: result.ports ? { ...result.output, ports: result.ports } : result.output,
    cost: result.cost ?? 0,
    startedAt,
    completedAt: new Date(),
    review: result.review
      ? { id: derivedUuid('review', run.id, job.nodeId, job.attempt), proposal: result.review }
      : null,
  };
}

/**
 * Port → upstream value(s), from the node's links and the upstream rows. A
 * link that brings no value (a route not taken, a skipped node; only on an
 * optional port, or the node would have been skipped) is left out: a list
 * port keeps the others, a port left with none is absent.
 */
function resolveInputs(
  graph: FlowGraph,
  nodeId: string,
  byId: Map<string, NodeRow>,
): Record<string, NodeValue | NodeValue[]> {
  const out: Record<string, NodeValue | NodeValue[]> = {};
  for (const link of graph.inputLinks(nodeId)) {
    const upstream = byId.get(link.node);
    if (!carriesValue(link, upstream)) continue;
    const value: NodeValue = { type: upstream!.output!.type, value: upstream!.output!.value };
    if (link.index === undefined) out[link.port] = value;
    else ((out[link.port] ??= []) as NodeValue[]).push(value);
  }
  return out;
}

function internalFailure(core: EngineCore, nodeId: string, err: unknown): NodeFailure {
  // Internal causes are logged in full and reported as `unknown` with a message safe to show.
  core.logger.error({ err, nodeId }, 'node executor failed unexpectedly');
  return new NodeFailure('unknown', `Node '${nodeId}' failed because of an internal error`);
}

/** A node execution's temporary directory: made on first use, removed when the execution ends, however it ends. */
class WorkDir {
  private made: Promise<string> | undefined;

  constructor(private readonly root: string) {}

  readonly path = (): Promise<string> => (this.made ??= fs.promises.mkdtemp(path.join(this.root, 'weft-node-')));

  async remove(core: EngineCore): Promise<void> {
    if (!this.made) return;
    try {
      await fs.promises.rm(await this.made, { recursive: true, force: true });
    } catch (err) {
      core.logger.warn({ err }, 'could not remove a node working directory');
    }
  }
}
