/**
 * Where a service came from decides who owns it: only an `embedded` one was
 * started by us, so only its `stop()` does anything.
 */
export type ServiceSource = 'env' | 'local' | 'embedded';

export interface ServiceHandle {
  source: ServiceSource;
  /** Stops the service when we started it; a no-op for `env` and `local`. */
  stop(): Promise<void>;
}

export interface EnsureServiceOptions {
  /** Folder for the embedded server's data and log; created when needed. */
  dataDir: string;
  /** Port probed for an already running server; also the embedded server's port unless `embeddedPort` is set. */
  port?: number;
  /**
   * Port for the embedded server when one has to be started; 0 picks a free
   * one. Test runs use 0 so that each owns its embedded servers outright and
   * never reuses another run's, which would vanish when that run ends.
   */
  embeddedPort?: number;
  /** Progress lines ("using the PostgreSQL already on 127.0.0.1:5432"). */
  log?: (line: string) => void;
}

export const LOCALHOST = '127.0.0.1';

export const noStop = async (): Promise<void> => undefined;

export const silent = (): void => undefined;
