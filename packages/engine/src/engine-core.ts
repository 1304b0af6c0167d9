import type { Db } from '@weft/db';
import type { ImageLimits, NodeRoutes } from '@weft/nodes';
import type { AssetJobProducer } from '@weft/queue';
import type { Storage, UrlSigner } from '@weft/storage';
import type { Logger } from 'pino';
import type { CancelBus, InFlight } from './dispatch/cancel-bus';
import type { RunChanges } from './dispatch/run-changes';
import type { RunDeltas } from './dispatch/run-deltas';
import type { TransitionWrite } from './store/commit-transition';
import type { Dispatcher } from './dispatch/dispatcher';
import type { WebhookRelay } from './dispatch/webhook-relay';
import type { EngineHooks } from './engine-hooks';
import type { VersionCache } from '@weft/catalog';
import type { GroupedCalls } from './store/grouped-calls';
import type { RunSnapshot } from './store/run-snapshots';

export interface MediaTools {
  ffmpeg: string;
  ffprobe: string;
  /** espeak-ng: text_to_speech's local route. */
  espeak: string;
}

/** What every use case of the engine works with; built once per process by createEngine. */
export interface EngineCore {
  db: Db;
  versions: VersionCache;
  /** Reads of runs for node execution, grouped (readRuns). */
  reads: GroupedCalls<string, RunSnapshot | undefined>;
  /** Node completions, grouped: each applies or not on its own run's version (commitTransitions). */
  commits: GroupedCalls<TransitionWrite, boolean>;
  dispatcher: Dispatcher;
  /** Enqueues the webhook deliveries a commit recorded, for runs that have webhooks. */
  webhooks: WebhookRelay;
  cancelBus: CancelBus;
  /** Told of every commit that changed runs, after it (the gateways' event streams). */
  changes: RunChanges;
  /** Where nodes send the text they produce as it comes (the gateways' event streams). */
  deltas: RunDeltas;
  inFlight: InFlight;
  logger: Logger;
  outboundAllowList: readonly string[];
  /** Observers (metrics), told about runs after their transactions commit. */
  hooks: EngineHooks;
  /** Object storage: needed by processes that execute nodes (workers), not by the gateway. */
  requireStorage(): Storage;
  /** What nodes may decode: needed by processes that execute nodes, with storage. */
  requireImageLimits(): ImageLimits;
  /** Largest input file a node reads into memory (EngineOptions.maxReadBytes). */
  maxReadBytes: number;
  /** ffmpeg, ffprobe and espeak-ng, for media nodes. */
  mediaTools: MediaTools;
  /** The provider adapters; absent where none is configured (provider nodes then fail saying so). */
  nodeRoutes?: NodeRoutes;
  /** Where node executions make their temporary directories. */
  nodeWorkRoot: string;
  /** Presigned URLs of node inputs, for ffmpeg: needs storage. */
  nodeUrls(): UrlSigner;
  /** Processing (thumbnail, metadata) of the files nodes produce; absent in processes that execute no node. */
  assetJobs?: AssetJobProducer;
}
