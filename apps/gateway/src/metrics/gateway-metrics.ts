import {
  createHttpMetrics,
  createMetricsRegistry,
  createRunMetrics,
  registerAdmissionGauges,
  registerClusterGauges,
  type AdmissionSources,
  type HttpMetrics,
  type MetricsRegistry,
  type RunMetrics,
} from '@weft/metrics';
import type { Logger } from 'pino';
import { clusterStateLoader, type ClusterStateSources } from './cluster-state';

/** What the gateway measures; exposed at GET /metrics (docs/operations.md lists every metric). */
export interface GatewayMetrics {
  registry: MetricsRegistry;
  http: HttpMetrics;
  /** Runs started here, and ended here (cancels, review decisions): the engine's hooks. */
  runs: RunMetrics;
}

export interface GatewayMetricsOptions extends ClusterStateSources {
  cacheMs: number;
  /** This instance's upload memory and SVG tracer, read at scrape time. */
  admission: AdmissionSources;
  logger: Logger;
}

export function createGatewayMetrics(options: GatewayMetricsOptions): GatewayMetrics {
  const registry = createMetricsRegistry();
  registerClusterGauges(registry, {
    load: clusterStateLoader(options),
    cacheMs: options.cacheMs,
    onError: (err) => options.logger.warn({ err: (err as Error).message }, 'cluster metrics unavailable'),
  });
  registerAdmissionGauges(registry, options.admission);
  return { registry, http: createHttpMetrics(registry), runs: createRunMetrics(registry) };
}
