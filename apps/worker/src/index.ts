// The worker's composition, for harnesses that run workers in their own process (the gateway's tests).
export {
  startAssetWorker,
  startNodeWorkers,
  startWebhookWorker,
  type AssetWorker,
  type AssetWorkerOptions,
  type NodeWorkers,
  type NodeWorkersOptions,
  type WebhookWorker,
  type WebhookWorkerOptions,
} from './compose';
// The settings it reads: the benchmarks start workers with them, and docs/configuration.md is checked against them.
export { loadConfig, WorkerEnv } from './config';
