import { isRefusedData } from '@weft/db';
import { isInstantNode, NodeFailure } from '@weft/nodes';
import type { ExecuteNodeJob } from '@weft/queue';
import { withLogContext } from '@weft/telemetry';
import type { EngineCore } from '../engine-core';
import { reportRunEnded } from '../engine-hooks';
import { failNode } from '../end-run/fail-node';
import type { LoadedVersion } from '@weft/catalog';
import type { NodeSettlement } from '../store/commit-transition';
import { NO_SCOPE, settleWithInstantNodes, type InstantScope } from './instant-chain';
import { CANCELED, invokeExecutor, type ExecutionScope } from './invoke-executor';
import type { RunSnapshot } from '../store/run-snapshots';
import { transitionOf, type Dispatch } from '@weft/dag';
import { NODE, RUN } from '@weft/dag';

export interface ExecuteOptions {
  /** The run as the caller read it: used instead of a read, and trusted no further than one (the commit checks the version). */
  known?: RunSnapshot | undefined;
  /** Wraps each instant node executed after this one (log context, span, metrics). */
  instantScope?: InstantScope | undefined;
}

/** What executing a node committed. */
export interface ExecutedNode {
  /** The nodes its commit settled: its own first, then the instant nodes executed after it. */
  settled: string[];
  /** The nodes its commit dispatched and it enqueued. */
  enqueued: Dispatch[];
}

const NOTHING: ExecutedNode = { settled: [], enqueued: [] };

/** Whether `job` still holds its node in `snapshot`: the run in progress, the node dispatched at this attempt. */
function holds(snapshot: RunSnapshot | undefined, job: ExecuteNodeJob): snapshot is RunSnapshot {
  if (snapshot?.run.status !== RUN.inProgress) return false;
  const row = snapshot.nodes.find((n) => n.node_id === job.nodeId);
  return row?.status === NODE.running && row.attempt === job.attempt;
}

/**
 * Executes one dispatched node (processor → here), then the instant nodes
 * its result makes ready (instant-chain.ts), and commits them together in one
 * statement. Redelivery is harmless: a node that is no longer `running` at
 * this attempt, or a run that has ended, is skipped; the commit applies only
 * on the run version its rows were read at, so of two executions of one
 * attempt only the first result counts.
 */
export async function executeNode(
  core: EngineCore,
  job: ExecuteNodeJob,
  options: ExecuteOptions = {},
): Promise<ExecutedNode> {
  const snapshot = options.known ?? (await core.reads.submit(job.runId));
  if (!holds(snapshot, job)) return NOTHING;
  const { run } = snapshot;
  const cancel = core.inFlight.start(run.id);
  try {
    const version = await core.versions.version(run.agent_version_id);
    const scope: ExecutionScope = {
      run,
      inputs: snapshot.inputs,
      nodes: new Map(snapshot.nodes.map((n) => [n.node_id, n])),
      version,
      cancel: cancel.signal,
    };
    const own = await invokeExecutor(core, scope, job);
    if (own === CANCELED) return NOTHING;
    if (own instanceof NodeFailure) {
      await failNode(core, job, own);
      return NOTHING;
    }
    return await commitNode(
      core,
      job,
      { read: snapshot, version },
      own,
      cancel.signal,
      options.instantScope ?? NO_SCOPE,
    );
  } finally {
    core.inFlight.finish(run.id, cancel);
  }
}

/** The failure of a node whose result PostgreSQL refuses (a number out of range, text it cannot store). */
function unrecordable(nodeId: string, err: unknown): NodeFailure {
  // PostgreSQL's message and detail describe the value, never the database.
  const { message, detail } = err as { message: string; detail?: string };
  return new NodeFailure(
    'invalid_input',
    `Node '${nodeId}' finished, but its result could not be recorded: ${message}${detail ? ` (${detail})` : ''}`,
  );
}

/** Attempts at committing one completion before giving up: each failed one means another transition landed. */
const MAX_COMMIT_ATTEMPTS = 50;

/**
 * Commits the node's result, the instant nodes that follow from it and what
 * follows from them in one statement, on the version of the run they were
 * computed from; when another transition landed first (a sibling branch, a
 * cancel, a redelivery), reads the run again and recomputes (the instant
 * nodes are executed again: they are pure), until it applies or the node is
 * no longer this job's to settle.
 */
async function commitNode(
  core: EngineCore,
  job: ExecuteNodeJob,
  { read, version }: { read: RunSnapshot; version: LoadedVersion },
  own: NodeSettlement,
  cancel: AbortSignal,
  around: InstantScope,
): Promise<ExecutedNode> {
  const spec = await core.versions.resultSpec(read.run.agent_version_id, read.run.app_id);
  let snapshot: RunSnapshot | undefined = read;
  for (let attempt = 1; ; attempt++) {
    const run = { ...snapshot.run };
    // The rows as they will be once this commits.
    const rows = snapshot.nodes.map((n) => ({ ...n }));
    const scope: ExecutionScope = {
      run,
      inputs: snapshot.inputs,
      nodes: new Map(rows.map((n) => [n.node_id, n])),
      version,
      cancel,
    };
    const chain = await settleWithInstantNodes(core, scope, rows, own, around);
    if (chain.canceled) return NOTHING;
    const wasPending = new Set(snapshot.nodes.filter((n) => n.status === NODE.pending).map((n) => n.node_id));
    const moved = rows.filter((n) => wasPending.has(n.node_id));
    const ready = moved
      .filter((n) => n.status === NODE.running)
      .map((n) => ({ nodeId: n.node_id, attempt: n.attempt, nodeType: n.node_type }));
    const skipped = moved.filter((n) => n.status === NODE.skipped).map((n) => n.node_id);
    const transition = transitionOf(run, rows, { ready, skipped }, version.graph, spec);
    const write = { run, settled: chain.settlements, transition, startedAt: own.startedAt };
    let applied: boolean;
    try {
      applied = await core.commits.submit(write);
    } catch (err) {
      if (!isRefusedData(err)) throw err;
      // Retried, the same values would be refused again (and the node executed, and paid for, again).
      core.logger.warn({ err }, 'node result refused by the database; failing the node');
      await failNode(core, job, unrecordable(job.nodeId, err));
      return NOTHING;
    }
    if (applied) {
      reportRunEnded(core, run);
      const settled = chain.settlements.map((s) => s.nodeId);
      if (chain.failed) {
        // The failed node was committed as dispatched; failing it ends the run and cancels the rest.
        const { job: failedJob, failure } = chain.failed;
        await withLogContext({ runId: failedJob.runId, nodeId: failedJob.nodeId }, () =>
          failNode(core, failedJob, failure, { spanMarked: true }),
        );
        if (run.has_webhooks) await core.webhooks.relay([run.id]);
        return { settled, enqueued: [] };
      }
      const enqueued = transition.ready.filter((d) => !isInstantNode(d.nodeType));
      await core.dispatcher.dispatch(run.organization_id, job.runId, enqueued);
      if (run.has_webhooks) await core.webhooks.relay([run.id]);
      return { settled, enqueued };
    }
    snapshot = await core.reads.submit(job.runId);
    if (!holds(snapshot, job)) return NOTHING;
    if (attempt >= MAX_COMMIT_ATTEMPTS) {
      throw new Error(`Node '${job.nodeId}' could not commit: its run kept changing (${attempt} attempts)`);
    }
  }
}
