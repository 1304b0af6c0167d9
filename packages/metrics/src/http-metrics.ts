import { Counter, Histogram } from 'prom-client';
import type { MetricsRegistry } from './registry';
import { METRIC } from './names';

/** Label of requests that matched no route: raw paths would make the series unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method label: the request's, or `other` (any string is a valid method, so it is bounded here). */
export function methodLabel(method: string): string {
  return HTTP_METHODS.has(method) ? method : 'other';
}

export interface HttpMetrics {
  /** One observation per response: the route template, never the URL. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  rateLimitRejected(bucket: string): void;
}

export function createHttpMetrics({ registry }: MetricsRegistry): HttpMetrics {
  const duration = new Histogram({
    name: METRIC.httpRequestDuration,
    help: 'Gateway HTTP request duration, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    // Uploads and downloads stream for a long time; the API answers in milliseconds.
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const rejections = new Counter({
    name: METRIC.rateLimitRejections,
    help: 'Requests refused with 429 by the rate limiter, by bucket',
    labelNames: ['bucket'] as const,
    registers: [registry],
  });
  // Present at 0 from the start, so rate() and alerts see the series before the first refusal.
  for (const bucket of ['default', 'create', 'upload']) rejections.inc({ bucket }, 0);
  return {
    observeRequest(method, route, status, seconds) {
      duration.observe({ method: methodLabel(method), route, status }, seconds);
    },
    rateLimitRejected(bucket) {
      rejections.inc({ bucket });
    },
  };
}
