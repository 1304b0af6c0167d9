import { startTracing, type Tracing } from './start-tracing';
import { tracingSettings, type OtelConfig } from './tracing-settings';

export interface Boot<C> {
  /** Started when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set; otherwise the SDK is never loaded. */
  tracing: Tracing;
  /** The configuration read at start-up; throws its ConfigError when it is invalid, for main() to report. */
  startupConfig(): C;
}

/**
 * What a process's first import does. OpenTelemetry's http instrumentation
 * patches `http` as it is required, so tracing must start before main.ts
 * loads anything that requires it (CommonJS runs imports in order). The
 * configuration is parsed here for that reason, once, and main() takes it
 * from startupConfig() rather than reading the environment again.
 */
export function bootTracing<C extends OtelConfig>(loadConfig: () => C): Boot<C> {
  let parsed: C | undefined;
  let invalid: unknown;
  try {
    parsed = loadConfig();
  } catch (err) {
    invalid = err;
  }
  return {
    tracing: startTracing(parsed && tracingSettings(parsed)),
    startupConfig() {
      if (!parsed) throw invalid;
      return parsed;
    },
  };
}
