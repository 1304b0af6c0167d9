import type { Db } from '@weft/db';
import type { ExecuteNodeJob } from '@weft/queue';
import type { Storage } from '@weft/storage';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CancelBus, InFlight } from './cancel-bus';
import { cancelRun } from './cancel-run';
import { decideReview, type ReviewDecisionInput } from './decide-review';
import { Dispatcher, type RunQueues } from './dispatcher';
import type { EngineCore } from './engine-core';
import { executeNode } from './execute-node';
import { VersionCache } from './flow-cache';
import { reconcile, type ReconcileReport } from './reconcile';
import { startRun, type StartedRun, type StartRunInput } from './start-run';

export interface EngineOptions {
  db: Db;
  queues: RunQueues;
  /** Any connection that may PUBLISH (cancellations). */
  publisher: Redis;
  redisPrefix: string;
  logger: Logger;
  storage?: Storage;
  outboundAllowList?: readonly string[];
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
  startRun(input: StartRunInput): Promise<StartedRun>;
  executeNode(job: ExecuteNodeJob): Promise<void>;
  decideReview(orgId: string, runId: string, reviewId: string, input: ReviewDecisionInput): Promise<void>;
  cancelRun(orgId: string, runId: string, kind: 'agent' | 'app'): Promise<void>;
  reconcile(staleMs: number): Promise<ReconcileReport>;
}

export function createEngine(options: EngineOptions): Engine {
  const core: EngineCore = {
    db: options.db,
    versions: new VersionCache(options.db.pool),
    dispatcher: new Dispatcher(options.queues, options.logger),
    cancelBus: new CancelBus(options.publisher, options.redisPrefix),
    inFlight: new InFlight(),
    logger: options.logger,
    outboundAllowList: options.outboundAllowList ?? [],
    requireStorage() {
      if (!options.storage) throw new Error('This process has no object storage: it cannot execute nodes');
      return options.storage;
    },
  };
  return {
    inFlight: core.inFlight,
    versions: core.versions,
    async startRun(input) {
      const started = await startRun(core.db.pool, core.versions, input);
      options.afterCreateCommit?.(started.id);
      await core.dispatcher.dispatch(started.id, started.dispatch);
      return started;
    },
    executeNode: (job) => executeNode(core, job),
    decideReview: (orgId, runId, reviewId, input) => decideReview(core, orgId, runId, reviewId, input),
    cancelRun: (orgId, runId, kind) => cancelRun(core, orgId, runId, kind),
    reconcile: (staleMs) => reconcile(core, staleMs),
  };
}
