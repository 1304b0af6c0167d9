import fs from 'node:fs';
import path from 'node:path';
import { startProcess, waitUntilReady, type ManagedProcess } from '../process/managed-process';
import { LOCALHOST } from '../service-handle';
import { isRedisReady } from './probe-redis';

export interface EmbeddedRedisOptions {
  /** Holds the append-only files (kept across restarts) and `redis.log`. */
  dataDir: string;
  port: number;
  redisServer: string;
  log: (line: string) => void;
}

const START_TIMEOUT_MS = 30_000;

export async function startEmbeddedRedis(options: EmbeddedRedisOptions): Promise<ManagedProcess> {
  fs.mkdirSync(options.dataDir, { recursive: true });
  const logFile = path.join(options.dataDir, 'redis.log');
  const args = [
    '--port',
    String(options.port),
    '--bind',
    LOCALHOST,
    '--dir',
    options.dataDir,
    // The append-only file keeps queued jobs across a restart; RDB snapshots would add nothing.
    '--appendonly',
    'yes',
    '--save',
    '',
    // BullMQ loses jobs if Redis evicts keys under memory pressure.
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'no',
    '--logfile',
    '',
  ];
  const server = startProcess({
    name: 'redis-server',
    command: options.redisServer,
    args,
    logFile,
    cwd: options.dataDir,
    // SIGTERM makes Redis flush the append-only file and exit.
    stopSignal: 'SIGTERM',
  });
  await waitUntilReady(server, () => isRedisReady(options.port), START_TIMEOUT_MS);
  options.log(`redis: started redis-server on ${LOCALHOST}:${options.port} (data in ${options.dataDir})`);
  return server;
}
