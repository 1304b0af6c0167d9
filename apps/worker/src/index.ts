// The worker's composition, for harnesses that run workers in their own process (the gateway's tests).
export {
  startAssetWorker,
  startNodeWorkers,
  type AssetWorker,
  type AssetWorkerOptions,
  type NodeWorkers,
  type NodeWorkersOptions,
} from './compose';
