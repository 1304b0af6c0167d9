import { isDatabaseUnavailable, type Db } from '@weft/db';
import type { ImageLimits, NodeRoutes } from '@weft/nodes';
import type { AssetJobProducer, ExecuteNodeJob, WebhookJobProducer } from '@weft/queue';
import { createUrlSigner, type Storage, type UrlSigner } from '@weft/storage';
import type { RedisClient } from '@weft/queue';
import os from 'node:os';
import type { Logger } from 'pino';
import { CancelBus, InFlight } from './dispatch/cancel-bus';
import { RunChanges } from './dispatch/run-changes';
import { RunDeltas } from './dispatch/run-deltas';
import { cancelRun } from './end-run/cancel-run';
import { decideReview, type ReviewDecisionInput } from './decide-review/decide-review';
import { Dispatcher, type RunQueues } from './dispatch/dispatcher';
import { WebhookRelay } from './dispatch/webhook-relay';
import type { EngineCore, MediaTools } from './engine-core';
import { notify, type EngineHooks } from './engine-hooks';
import { commitTransitions } from './store/commit-transition';
import { executeNode, type ExecutedNode, type ExecuteOptions } from './execute-node/execute-node';
import { GroupedCalls } from './store/grouped-calls';
import { readRuns } from './store/run-snapshots';
import { VersionCache } from '@weft/catalog';
import { reconcile, type ReconcileReport } from './reconcile/reconcile';
import { cancelProviderJobs, type CancelSweepReport } from './end-run/cancel-provider-jobs';
import { CreateBatches } from './start-run/create-batches';
import { createRun, type CreatedRun, type CreateRunInput } from './start-run/create-run';
import { catalogAgents, type AgentSource } from './start-run/resolve-target';
import { prepareRun, startEmptyRun, type StartedRun, type StartRunInput } from './start-run/start-run';
import { RUN } from '@weft/dag';

const DEFAULT_MAX_READ_BYTES = 100 * 1024 * 1024;

export interface EngineOptions {
  db: Db;
  queues: RunQueues;
  /** Any connection that may PUBLISH (cancellations, run changes, deltas). */
  publisher: RedisClient;
  redisPrefix: string;
  logger: Logger;
  /**
   * Where creates read the agents they run (the gateway's cache, so that a
   * create reads no agent row); default: the catalog, read at each create.
   */
  agents?: AgentSource;
  storage?: Storage;
  /** Where produced files are sent for processing (workers). */
  assetJobs?: AssetJobProducer;
  /** Where the webhook deliveries of committed changes are sent (absent: left to the workers' sweep). */
  webhookJobs?: WebhookJobProducer;
  outboundAllowList?: readonly string[];
  /** What nodes may decode (ASSET_MAX_IMAGE_PIXELS): needed, like storage, by processes that execute nodes. */
  imageLimits?: ImageLimits;
  /**
   * Largest input file a node reads into memory (images, fonts, subtitles;
   * media nodes stream theirs): ASSET_MAX_IMAGE_BYTES. Default 100 MiB.
   */
  maxReadBytes?: number;
  /** ffmpeg, ffprobe and espeak-ng for media nodes (default: the ones on PATH). */
  mediaTools?: MediaTools;
  /** The provider adapters, for the nodes they serve (ADR 0030). */
  nodeRoutes?: NodeRoutes;
  /** Where node executions make their temporary directories (default: os.tmpdir()). */
  nodeWorkRoot?: string;
  /** Observers of runs started and ended (the process's metrics). */
  hooks?: EngineHooks;
  /**
   * Fault injection for durability tests only: called after a run's
   * transaction committed and before its first jobs are enqueued.
   */
  afterCreateCommit?: (runId: string) => void;
}

/** The use cases of run execution, over the clients of the calling process. */
export interface Engine {
  readonly inFlight: InFlight;
  readonly versions: VersionCache;
  /**
   * Creates a run of the agent or app a request names: resolves it (404 when
   * not readable), checks the inputs against it (agent: 422, app: 400), then
   * starts it as startRun does. A refused create writes and claims nothing.
   */
  createRun(input: CreateRunInput): Promise<CreatedRun>;
  /** Writes and dispatches a run of a target already resolved, its inputs already checked. */
  startRun(input: StartRunInput): Promise<StartedRun>;
  /**
   * Executes a dispatched node and the instant nodes that follow from it,
   * commits them together and enqueues the nodes that commit dispatched.
   */
  executeNode(job: ExecuteNodeJob, options?: ExecuteOptions): Promise<ExecutedNode>;
  /** A node job is done with (executed, skipped or failed for good): its organization's slot goes to the next job waiting. */
  finishedJob(job: ExecuteNodeJob): Promise<void>;
  decideReview(orgId: string, runId: string, reviewId: string, input: ReviewDecisionInput): Promise<void>;
  cancelRun(orgId: string, runId: string, kind: 'agent' | 'app'): Promise<void>;
  reconcile(staleMs: number): Promise<ReconcileReport>;
  /** Cancels at their providers the jobs that ended runs left running (end-run/cancel-provider-jobs.ts): one pass. */
  cancelProviderJobs(): Promise<CancelSweepReport>;
}

/** Most runs one grouped read or commit statement of a worker covers. */
const GROUP_MAX = 64;

/** A grouped statement's runs are tried apart unless the database itself is the trouble (grouped-calls.ts). */
const retryApart = (err: unknown) => !isDatabaseUnavailable(err);

export function createEngine(options: EngineOptions): Engine {
  const { pool, customPlanPool } = options.db;
  // One run's statements reach it by primary key, which a generic plan does well at any table size;
  // a group's are planned for their actual ids and the table as it is now (ADR 0014).
  const poolFor = (n: number) => (n === 1 ? pool : customPlanPool);
  let urls: UrlSigner | undefined;
  const changes = new RunChanges(options.publisher, options.redisPrefix);
  const core: EngineCore = {
    db: options.db,
    versions: new VersionCache(pool),
    reads: new GroupedCalls({ call: (ids) => readRuns(poolFor(ids.length), ids), max: GROUP_MAX, retryApart }),
    commits: new GroupedCalls({
      call: async (writes) => {
        const applied = await commitTransitions(poolFor(writes.length), writes);
        changes.announce(writes.filter((_, i) => applied[i]).map((w) => w.run));
        return applied;
      },
      max: GROUP_MAX,
      key: (w) => w.run.id,
      retryApart,
    }),
    dispatcher: new Dispatcher(options.queues, options.logger),
    webhooks: new WebhookRelay(pool, options.webhookJobs, options.logger),
    cancelBus: new CancelBus(options.publisher, options.redisPrefix),
    changes,
    deltas: new RunDeltas(options.publisher, options.redisPrefix),
    inFlight: new InFlight(),
    logger: options.logger,
    outboundAllowList: options.outboundAllowList ?? [],
    hooks: options.hooks ?? {},
    ...(options.assetJobs ? { assetJobs: options.assetJobs } : {}),
    requireStorage() {
      if (!options.storage) throw new Error('This process has no object storage: it cannot execute nodes');
      return options.storage;
    },
    mediaTools: options.mediaTools ?? { ffmpeg: 'ffmpeg', ffprobe: 'ffprobe', espeak: 'espeak-ng' },
    nodeWorkRoot: options.nodeWorkRoot ?? os.tmpdir(),
    ...(options.nodeRoutes ? { nodeRoutes: options.nodeRoutes } : {}),
    nodeUrls() {
      // Media nodes hand ffmpeg presigned URLs of their inputs; two hours outlast any media node's timeout.
      urls ??= createUrlSigner(this.requireStorage(), { ttlSeconds: 7200, audience: 'servers' });
      return urls;
    },
    maxReadBytes: options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES,
    requireImageLimits() {
      if (!options.imageLimits) throw new Error('This process has no image limits: it cannot execute nodes');
      return options.imageLimits;
    },
  };
  const creates = new CreateBatches(core.db.pool);
  const startRun = async (input: StartRunInput): Promise<StartedRun> => {
    const prepared = await prepareRun(core.versions, input);
    const started =
      prepared.nodeIds.length > 0
        ? await creates.create(prepared)
        : await startEmptyRun(core.db.pool, core.versions, prepared);
    reportStarted(core, input, started);
    // No change to announce: a run has no event stream before its creation is answered
    // (one opened earlier found no run, 404), and a stream reads the run when it opens.
    options.afterCreateCommit?.(started.id);
    await core.dispatcher.dispatch(input.organizationId, started.id, started.dispatch);
    if (started.hasWebhooks) await core.webhooks.relay([started.id]);
    return started;
  };
  const targets = { db: core.db, agents: options.agents ?? catalogAgents(core.db), versions: core.versions };
  return {
    inFlight: core.inFlight,
    versions: core.versions,
    createRun: (input) => createRun(targets, startRun, input),
    startRun,
    executeNode: (job, opts) => executeNode(core, job, opts),
    finishedJob: (job) => core.dispatcher.finished(job),
    decideReview: (orgId, runId, reviewId, input) => decideReview(core, orgId, runId, reviewId, input),
    cancelRun: (orgId, runId, kind) => cancelRun(core, orgId, runId, kind),
    reconcile: (staleMs) => reconcile(core, staleMs),
    cancelProviderJobs: () => cancelProviderJobs(core),
  };
}

/** A created run, and its end when it ended at once (insufficient credits, or no node to execute). */
function reportStarted(core: EngineCore, input: StartRunInput, started: StartedRun): void {
  const reservedCredits = started.failureReason === 'insufficient_credits' ? 0 : input.estimatedCost;
  notify(core, 'runStarted', { kind: input.kind, reservedCredits });
  if (started.status === RUN.inProgress) return;
  notify(core, 'runEnded', {
    kind: input.kind,
    status: started.status,
    failureReason: started.failureReason,
    reservedCredits,
    chargedCredits: 0,
  });
}
