import type { Db } from '@weft/db';
import type { Storage } from '@weft/storage';
import type { Logger } from 'pino';
import type { CancelBus, InFlight } from './cancel-bus';
import type { Dispatcher } from './dispatcher';
import type { VersionCache } from './flow-cache';

/** What every use case of the engine works with; built once per process by createEngine. */
export interface EngineCore {
  db: Db;
  versions: VersionCache;
  dispatcher: Dispatcher;
  cancelBus: CancelBus;
  inFlight: InFlight;
  logger: Logger;
  outboundAllowList: readonly string[];
  /** Object storage: needed by processes that execute nodes (workers), not by the gateway. */
  requireStorage(): Storage;
}
