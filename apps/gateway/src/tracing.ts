import { bootTracing } from '@weft/telemetry';
import { loadConfig, type GatewayConfig } from './config';
import { applyGcTuning } from './runtime/gc-tuning';

// main.ts's first import: tracing starts (when configured) before anything
// requires `http`, from the configuration read here once (see bootTracing).
// V8's heap growth is set in the same breath, before the heap has grown.
export const { tracing, startupConfig } = bootTracing<GatewayConfig>(() => {
  const config = loadConfig();
  applyGcTuning(config.GC_HEAP_GROWING_PERCENT);
  return config;
});
