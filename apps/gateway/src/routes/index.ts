import type { AnyRoute } from '../http/define-route';
import { createDocsRoutes } from './docs/docs.routes';
import { healthz, readyz } from './health/health.routes';

// Every route the gateway serves. The OpenAPI document is generated from this list.
const apiRoutes: AnyRoute[] = [healthz, readyz] as AnyRoute[];

export const docs = createDocsRoutes(() => allRoutes);
export const allRoutes: AnyRoute[] = [...apiRoutes, ...docs.routes];
