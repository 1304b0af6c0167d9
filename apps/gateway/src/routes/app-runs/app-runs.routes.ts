import {
  AppRunPageSchema,
  AppRunSchema,
  CreateAppRunBody,
  ErrorBody,
  ListRunsQuery,
  ValidationErrorBody,
  IdParam,
  z,
} from '@weft/contracts';
import { defineRoute, type AnyRoute } from '../../http/define-route';
import { createAppRun } from '../../runs/create-app-run';
import { getAppRun } from '../../runs/get-run';
import { listAppRuns } from '../../runs/list-runs';

const RunPath = z.object({ run_id: IdParam });

export const listAppRunsRoute = defineRoute({
  method: 'get',
  path: '/app-runs',
  summary: "List the organization's app runs",
  tags: ['app-runs'],
  auth: 'api',
  request: { query: ListRunsQuery },
  responses: { 200: { description: 'A page of app runs, newest first', schema: AppRunPageSchema } },
  handler: async ({ deps, auth, query }) => ({
    status: 200,
    body: await listAppRuns(deps.db, auth.organizationId, query),
  }),
});

export const createAppRunRoute = defineRoute({
  method: 'post',
  path: '/app-runs',
  summary: 'Run an app',
  tags: ['app-runs'],
  auth: 'api',
  rateLimit: 'create',
  request: { body: CreateAppRunBody },
  responses: {
    201: { description: 'The run: in_progress, or failed at once with insufficient_credits', schema: AppRunSchema },
    400: { description: 'Inputs break the rules of interface.md 4.4; nothing is claimed', schema: ErrorBody },
    404: { description: 'App not found or not accessible', schema: ErrorBody },
    409: { description: 'external_id already claimed; carries existing_id', schema: ErrorBody },
    422: { description: 'Malformed body (e.g. external_id over 255 characters)', schema: ValidationErrorBody },
  },
  handler: async ({ deps, auth, body }) => ({
    status: 201,
    body: await createAppRun(deps.db, deps.engine, deps.endedRuns, auth.organizationId, body),
  }),
});

export const getAppRunRoute = defineRoute({
  method: 'get',
  path: '/app-runs/:run_id',
  summary: 'Get an app run',
  tags: ['app-runs'],
  auth: 'api',
  request: { params: RunPath },
  responses: {
    200: { description: 'The app run', schema: AppRunSchema },
    404: { description: 'Run not found or not accessible', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => ({
    status: 200,
    body: await getAppRun(deps.db, deps.endedRuns, auth.organizationId, params.run_id),
  }),
});

export const cancelAppRunRoute = defineRoute({
  method: 'delete',
  path: '/app-runs/:run_id',
  summary: 'Cancel an app run',
  tags: ['app-runs'],
  auth: 'api',
  request: { params: RunPath },
  responses: {
    204: { description: 'Canceled: the run ends as canceled within seconds' },
    404: { description: 'Run not found or not accessible', schema: ErrorBody },
    409: { description: 'The run has already ended; nothing changed', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => {
    await deps.engine.cancelRun(auth.organizationId, params.run_id, 'app');
    return { status: 204 };
  },
});

export const appRunRoutes = [listAppRunsRoute, createAppRunRoute, getAppRunRoute, cancelAppRunRoute] as AnyRoute[];
