import { ErrorBody } from '@weft/contracts';
import { UnauthorizedError } from '@weft/errors';
import { bearerMatches } from '@weft/metrics';
import { defineRoute } from '../../http/define-route';

/**
 * Prometheus' scrape endpoint. Open by default, like /healthz: the load
 * balancer should not route it publicly (docs/operations.md). With
 * METRICS_TOKEN set it requires that token as a Bearer token. Never rate
 * limited and never asks for an API key, so a busy API cannot blind monitoring.
 */
export const metrics = defineRoute({
  method: 'get',
  path: '/metrics',
  summary: 'Prometheus metrics, text exposition format (Bearer METRICS_TOKEN when configured)',
  tags: ['operations'],
  auth: 'public',
  responses: {
    200: { description: 'The metrics', contentType: 'text/plain; version=0.0.4' },
    401: { description: 'METRICS_TOKEN is configured and the request does not carry it', schema: ErrorBody },
  },
  handler: async ({ req, res, deps }) => {
    const token = deps.config.METRICS_TOKEN;
    if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
      throw new UnauthorizedError('Missing or wrong metrics token');
    }
    const { registry } = deps.metrics;
    const body = await registry.expose();
    res.status(200).type(registry.contentType).send(body);
    return undefined;
  },
});
