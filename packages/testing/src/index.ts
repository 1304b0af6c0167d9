export { createTestEnv, type TestEnv, type TestS3 } from './create-test-env';
export { waitFor } from './wait-for';
export { startDedicatedRedis, type DedicatedRedis } from './dedicated-redis';
export { startRedisCluster, type RedisClusterOptions, type TestRedisCluster } from './redis-cluster';
export { blackPng, jpegDeclaring } from './image-bombs';
export { deleteRedisKeys } from './test-resources';
export { startLoopbackServer, type DoubleHandler, type LoopbackServer } from './doubles/loopback-server';
export {
  startElevenLabsDouble,
  type ElevenLabsDouble,
  type ElevenLabsOutcome,
  type ElevenLabsRequest,
  type DubbingScript,
} from './doubles/elevenlabs-double';
export {
  startFalDouble,
  FAL_IMAGE,
  type FalDouble,
  type FalOutcome,
  type FalRecordedRequest,
} from './doubles/fal-double';
export {
  startApifyDouble,
  type ApifyDouble,
  type ApifyOutcome,
  type ApifyRequest,
  type DoubleRun,
  type RunScript,
} from './doubles/apify-double';
export {
  startOpenAIDouble,
  type DoubleOutcome,
  type OpenAIDouble,
  type RecordedFile,
  type RecordedRequest,
  type VideoScript,
} from './doubles/openai-double';
export {
  startReplicateDouble,
  type ReplicateDouble,
  type ReplicateOutcome,
  type PredictionScript,
} from './doubles/replicate-double';
