import { Gauge } from 'prom-client';
import type { MetricsRegistry } from './registry';
import { METRIC } from './names';

/** What one gateway instance holds back to stay within its memory, read at scrape time. */
export interface AdmissionSources {
  uploadMemory(): { reservedBytes: number; waiting: number };
  svgTraces(): { running: number; waiting: number };
}

/**
 * Per-instance gauges of the gateway's admission limits (uploads waiting for
 * memory, SVG traces waiting for the tracer). Unlike the cluster gauges they
 * differ between replicas: dashboards sum or max them by instance. A queue
 * that stays long means the instance needs more memory or more replicas.
 */
export function registerAdmissionGauges({ registry }: MetricsRegistry, sources: AdmissionSources): void {
  new Gauge({
    name: METRIC.uploadMemoryReserved,
    help: 'Bytes reserved by uploads under way on this instance (bounded by ASSET_UPLOAD_MEMORY_BYTES)',
    registers: [registry],
    collect() {
      this.set(sources.uploadMemory().reservedBytes);
    },
  });
  new Gauge({
    name: METRIC.uploadsWaiting,
    help: 'Uploads on this instance waiting for upload memory (at most 64; beyond, 503)',
    registers: [registry],
    collect() {
      this.set(sources.uploadMemory().waiting);
    },
  });
  new Gauge({
    name: METRIC.svgTraces,
    help: 'svg=true conversions on this instance, running or waiting for the tracer (at most 8 waiting; beyond, 503)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const { running, waiting } = sources.svgTraces();
      this.set({ state: 'running' }, running);
      this.set({ state: 'waiting' }, waiting);
    },
  });
}
