// @weft/engine: the only package combining the database, the queues, object
// storage and the node executors. Processes build one Engine over their own
// clients (the gateway to start, decide and cancel; workers to execute and reconcile).
export { createEngine, type Engine, type EngineOptions } from './engine';
export type { EngineHooks, NodeJobFact, RunEndedFact, RunStartedFact } from './engine-hooks';
export { createRunQueues, type RunQueues } from './dispatcher';
export { OrgSlots, type OrgSlotsSettings } from './org-slots';
export { InFlight, listenForCancellations } from './cancel-bus';
export { TransientError } from './transient';
export type { StartRunInput, StartedRun } from './start-run';
export type { ReviewDecisionInput } from './decide-review';
export type { ReconcileReport } from './reconcile';
export type { LoadedVersion } from './flow-cache';
export type { ExecutedNode, ExecuteOptions } from './execute-node';
export type { RunSnapshot } from './run-snapshots';
export { uuidv7, derivedUuid } from './ids';
export { startNodeWorkers, type NodeWorkers, type NodeWorkersOptions } from './node-workers';
