// @weft/engine: the use cases of running a flow, over the database, the queues,
// object storage and the node executors. Its words, used nowhere else for these:
//   ready     a pending node whose upstream nodes have all settled (@weft/dag)
//   dispatch  mark ready nodes `running` and enqueue their jobs once committed
//   settle    record a node's result (completed, waiting for review, skipped)
//   commit    write a run's transition in one statement, on the version it was read at
// Processes build one Engine over their own clients: the gateway starts runs,
// decides reviews and cancels; workers execute nodes and reconcile.
export { createEngine, type Engine, type EngineOptions } from './engine';
export type { MediaTools } from './engine-core';
export { notify, type EngineHooks, type NodeJobFact, type RunEndedFact, type RunStartedFact } from './engine-hooks';
export { createRunQueues, type RunQueues } from './dispatch/dispatcher';
export { OrgSlots, readSlotBacklog, type OrgSlotsSettings, type SlotBacklog } from './dispatch/org-slots';
export { InFlight, listenForCancellations } from './dispatch/cancel-bus';
export { listenForRunChanges, type RunChange } from './dispatch/run-changes';
export { listenForRunDeltas, type RunDeltaListener } from './dispatch/run-deltas';
export type { StartRunInput, StartedRun } from './start-run/start-run';
export type { CreatedRun, CreateRunInput } from './start-run/create-run';
export type { AgentSource } from './start-run/resolve-target';
export type { ReviewDecisionInput } from './decide-review/decide-review';
export type { ReconcileReport } from './reconcile/reconcile';
export type { CancelSweepReport } from './end-run/cancel-provider-jobs';
export type { ExecutedNode, ExecuteOptions } from './execute-node/execute-node';
export type { InstantScope } from './execute-node/instant-chain';
// executeNode's read of a run, for tests that hand it a stale one (ExecuteOptions.known).
export { readRuns, type RunSnapshot } from './store/run-snapshots';
export { adjustCredits } from './store/credits';
export { readRunRecords, runRecord, sharedRunFields, type RunRef, type SharedRunFields } from './store/run-record';
export { GroupedCalls, type GroupedCallsOptions } from './store/grouped-calls';
export {
  countRuns,
  readRunChanges,
  readRunRow,
  readRunNodes,
  type NodeStateRow,
  runsPage,
  runVersions,
  type NodeChangeRow,
  type RunChangesRow,
  type RunCounts,
  type RunKindName,
  type RunReadRow,
  type RunsPageInput,
  type RunSummaryRow,
} from './store/run-reads';
