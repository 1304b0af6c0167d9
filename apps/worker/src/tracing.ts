import { startTracing, tracingSettings, type Tracing } from '@weft/telemetry';
import { loadConfig, type WorkerConfig } from './config';

// main.ts's first import. OpenTelemetry's http instrumentation patches `http`
// as it is required, so tracing must start before main.ts loads anything that
// requires it (CommonJS runs imports in order). The configuration is parsed
// here for that reason, once: main.ts takes it from startupConfig().

let parsed: WorkerConfig | undefined;
let invalid: unknown;
try {
  parsed = loadConfig();
} catch (err) {
  invalid = err;
}

/** Started when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set; otherwise the SDK is never loaded. */
export const tracing: Tracing = startTracing(parsed && tracingSettings(parsed));

/** The configuration read at start-up; throws its ConfigError when it is invalid, for main() to report. */
export function startupConfig(): WorkerConfig {
  if (!parsed) throw invalid;
  return parsed;
}
