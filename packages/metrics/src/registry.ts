import { collectDefaultMetrics, Registry } from 'prom-client';

// Process metrics (CPU, memory, event loop lag, GC) describe the process, not
// a component: they are collected once per process, unprefixed as Prometheus'
// conventions expect, and appended to every component registry's output. A
// registry per component keeps tests that build several gateways in one
// process from clashing over metric names.

let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface MetricsRegistry {
  /** Where this component's metrics are registered. */
  readonly registry: Registry;
  /** The Content-Type of the exposition. */
  readonly contentType: string;
  /** The text exposition of the process metrics and this component's metrics. */
  expose(): Promise<string>;
}

export function createMetricsRegistry(): MetricsRegistry {
  const registry = new Registry();
  const shared = processMetrics();
  return {
    registry,
    contentType: registry.contentType,
    async expose() {
      const [own, process] = await Promise.all([registry.metrics(), shared.metrics()]);
      return `${process}\n${own}`;
    },
  };
}
