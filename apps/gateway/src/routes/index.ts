import type { AnyRoute } from '../http/define-route';
import { agentRunKind } from '../runs/agent-run-kind';
import { appRunKind } from '../runs/app-run-kind';
import { adminRoutes } from './admin/admin.routes';
import { agentRoutes } from './agents/agents.routes';
import { appRoutes } from './apps/apps.routes';
import { assetRoutes } from './assets/assets.routes';
import { credentialRoutes } from './credentials/credentials.routes';
import { createDocsRoutes } from './docs/docs.routes';
import { healthz, readyz } from './health/health.routes';
import { metrics } from './metrics/metrics.routes';
import { nodeTypeRoutes } from './node-types/node-types.routes';
import { reviewRoutes } from './runs/reviews.routes';
import { runRoutes } from './runs/runs.routes';
import { webhookRoutes } from './webhooks/webhooks.routes';

// Every route the gateway serves. The OpenAPI document is generated from this list.
const apiRoutes: AnyRoute[] = [
  healthz,
  readyz,
  metrics,
  ...adminRoutes,
  ...agentRoutes,
  ...appRoutes,
  ...assetRoutes,
  ...runRoutes(agentRunKind),
  ...reviewRoutes,
  ...runRoutes(appRunKind),
  ...nodeTypeRoutes,
  ...credentialRoutes,
  ...webhookRoutes,
] as AnyRoute[];

export const docs = createDocsRoutes(() => allRoutes);
export const allRoutes: AnyRoute[] = [...apiRoutes, ...docs.routes];
