import { bootTracing } from '@weft/telemetry';
import { loadConfig, type GatewayConfig } from './config';

// main.ts's first import: tracing starts (when configured) before anything
// requires `http`, from the configuration read here once (see bootTracing).
export const { tracing, startupConfig } = bootTracing<GatewayConfig>(loadConfig);
