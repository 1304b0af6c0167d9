import { isInstantNode, isRequiredInput, NodeFailure } from '@weft/nodes';
import type { ExecuteNodeJob } from '@weft/queue';
import { markNodeFailed } from '@weft/telemetry';
import type { NodeSettlement } from '../store/commit-transition';
import type { EngineCore } from '../engine-core';
import { CANCELED, invokeExecutor, type ExecutionScope } from './invoke-executor';
import { dispatchReady } from '@weft/dag';
import type { NodeRow } from '../store/run-rows';

/**
 * Wraps the execution of each instant node of a chain (the worker's log
 * context, span and metrics); `execute` runs inside it, so the instant nodes
 * it makes ready run nested in it.
 */
export type InstantScope = <T>(job: ExecuteNodeJob, execute: () => Promise<T>) => Promise<T>;

export const NO_SCOPE: InstantScope = (_job, execute) => execute();

/** What settling a node and the instant nodes that followed it left to commit. */
export interface Chain {
  /** The node settled first, then each instant node executed after it, in order of execution. */
  settlements: NodeSettlement[];
  /** An instant node that failed: it stays dispatched (`running`) in the commit, and is failed after it. */
  failed: { job: ExecuteNodeJob; failure: NodeFailure } | null;
  /** A cancel stopped the chain: the run has ended, nothing is to be committed. */
  canceled: boolean;
}

/**
 * Settles `first` in the working rows of `scope` (mutated) and executes, at
 * once and depth first, the instant nodes it makes ready (NodeExecutor.instant),
 * then those that each of them makes ready, and so on: pure text functions,
 * executed in memory and committed together with the node that led to them
 * (ADR 0013). Nodes that are not instant are marked `running` in the rows, for
 * the commit to dispatch; nodes that only routes not taken lead to, `skipped`. A failure or a cancel stops the chain where it happens.
 */
export async function settleWithInstantNodes(
  core: EngineCore,
  scope: ExecutionScope,
  rows: NodeRow[],
  first: NodeSettlement,
  around: InstantScope,
): Promise<Chain> {
  const chain: Chain = { settlements: [], failed: null, canceled: false };
  const settle = async (settlement: NodeSettlement): Promise<void> => {
    const row = scope.nodes.get(settlement.nodeId)!;
    row.status = settlement.status;
    row.output = settlement.output;
    row.cost += settlement.cost;
    chain.settlements.push(settlement);
    for (const ready of dispatchReady(rows, scope.version.graph, isRequiredInput).ready) {
      if (!isInstantNode(ready.nodeType)) continue;
      // Stopped: the nodes left stay dispatched, for failNode to cancel (or the reconciler to enqueue after a crash).
      if (chain.failed || chain.canceled) return;
      const job: ExecuteNodeJob = { runId: scope.run.id, ...ready };
      await around(job, async () => {
        const outcome = await invokeExecutor(core, scope, job);
        if (outcome === CANCELED || scope.cancel.aborted) chain.canceled = true;
        else if (outcome instanceof NodeFailure) {
          // Inside the node's own span; the failure itself is written after the chain's commit.
          markNodeFailed(outcome.reason, outcome.message);
          chain.failed = { job, failure: outcome };
        } else await settle(outcome);
      });
    }
  };
  await settle(first);
  return chain;
}
