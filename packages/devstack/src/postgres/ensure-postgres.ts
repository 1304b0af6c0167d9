import { PortInUseError } from '../errors';
import { isPortListening, resolvePort } from '../tcp';
import { noStop, silent, type EnsureServiceOptions, type ServiceHandle } from '../service-handle';
import { startEmbeddedPostgres } from './embedded-postgres';
import { probePostgres } from './probe-postgres';
import { localPostgresUrl } from './postgres-url';

export const DEFAULT_POSTGRES_PORT = 5432;

export interface EnsurePostgresOptions extends EnsureServiceOptions {
  /** DATABASE_URL, when the user set one: used as is; nothing is probed or started. */
  url?: string;
  /** Database named in the returned URL for a local or embedded server (default `postgres`). */
  database?: string;
  /** false turns fsync off on an embedded server: faster, and fine for test data. Default true. */
  durable?: boolean;
}

export interface PostgresHandle extends ServiceHandle {
  /** Connection URL of `database` (or exactly the given `url`). */
  url: string;
}

/**
 * A PostgreSQL to use: the given URL; else the server already on the local
 * port; else an embedded server (on `embeddedPort`, default the same port)
 * whose data lives in `dataDir`.
 */
export async function ensurePostgres(options: EnsurePostgresOptions): Promise<PostgresHandle> {
  if (options.url) return { url: options.url, source: 'env', stop: noStop };
  const log = options.log ?? silent;
  const port = options.port ?? DEFAULT_POSTGRES_PORT;
  const database = options.database ?? 'postgres';

  if (await isPortListening(port)) {
    try {
      await probePostgres(localPostgresUrl(port, 'postgres'));
    } catch (err) {
      throw new PortInUseError(
        port,
        'a PostgreSQL server accepting user postgres (password postgres)',
        'Stop what listens there, or set DATABASE_URL to the PostgreSQL to use.',
        err,
      );
    }
    log(`postgres: using the server already running on 127.0.0.1:${port}`);
    return { url: localPostgresUrl(port, database), source: 'local', stop: noStop };
  }

  const embeddedPort = await resolvePort(options.embeddedPort ?? port);
  const server = await startEmbeddedPostgres({
    dataDir: options.dataDir,
    port: embeddedPort,
    durable: options.durable ?? true,
    log,
  });
  return {
    url: localPostgresUrl(embeddedPort, database),
    source: 'embedded',
    async stop() {
      await server.stop();
      log('postgres: stopped');
    },
  };
}
