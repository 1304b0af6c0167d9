import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { activeTracer } from './tracing-state';

/**
 * Names the HTTP server span of the request being served by its route
 * template (`POST /runs/:id/reviews/:reviewId`, never the concrete path):
 * the http instrumentation reads the route from the request's RPC metadata
 * when the response ends, as it does for its framework instrumentations.
 */
export function setHttpRoute(route: string): void {
  if (!activeTracer()) return;
  const rpc = getRPCMetadata(context.active());
  if (rpc?.type === RPCType.HTTP) rpc.route = route;
}
