import { UNMATCHED_ROUTE, type HttpMetrics } from '@weft/metrics';
import type { Request, RequestHandler, Response } from 'express';

// weft_http_request_duration_seconds is labelled with the route template
// (`/runs/:run_id`), never the URL, so the series stay bounded. Express leaves
// the matched route on req.route; routers mounted with app.use (docs assets,
// the queue dashboard) have none of ours and are labelled with their mount path.

const ROUTE_LABEL = Symbol('weft.metrics.route');
const STREAM_STARTED = Symbol('weft.metrics.streamStarted');

type LabelledRequest = Request & { [ROUTE_LABEL]?: string };
type StreamingResponse = Response & { [STREAM_STARTED]?: number };

/**
 * The response is a stream that stays open (a run's events): its duration is
 * the time until it started, what its client waited for, rather than how long
 * the client followed it, which would swamp every other request's in the histogram.
 */
export function streamStarted(res: Response): void {
  (res as StreamingResponse)[STREAM_STARTED] = performance.now();
}

/** Labels every request reaching this middleware with `label` (for routers mounted with app.use). */
export function labelRoute(label: string): RequestHandler {
  return (req, _res, next) => {
    (req as LabelledRequest)[ROUTE_LABEL] = label;
    next();
  };
}

function routeOf(req: Request): string {
  const labelled = (req as LabelledRequest)[ROUTE_LABEL];
  if (labelled !== undefined) return labelled;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? path : UNMATCHED_ROUTE;
}

/** One histogram observation when the response ends (or the client hangs up). */
export function measureRequests(metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      const ended = (res as StreamingResponse)[STREAM_STARTED] ?? performance.now();
      metrics.observeRequest(req.method, routeOf(req), res.statusCode, (ended - started) / 1000);
    });
    next();
  };
}
