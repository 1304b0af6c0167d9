import type { TracingSettings } from './tracing-settings';

export interface Tracing {
  readonly enabled: boolean;
  /** Exports the spans still buffered and stops; call it on SIGTERM before exiting. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, shutdown: async () => undefined };

/**
 * Starts OpenTelemetry when `settings` say so. Must run before anything loads
 * `http`: the instrumentation patches the module as it is required. With
 * tracing off the SDK is never loaded; @opentelemetry/api calls elsewhere are
 * then no-ops and the helpers of this package return at their first line.
 */
export function startTracing(settings: TracingSettings | undefined): Tracing {
  if (!settings) return OFF;
  // Loaded on demand and synchronously: the SDK and its exporters are a few
  // hundred milliseconds of module loading that an untraced process never pays,
  // and an `await import()` would let main.ts load `http` before the SDK patched it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startSdk } = require('./sdk') as typeof import('./sdk');
  return startSdk(settings);
}
