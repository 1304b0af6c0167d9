import { createApp, getApp, listApps } from '@weft/catalog';
import { AppPageSchema, AppSchema, CreateAppBody, ErrorBody, IdParam, ListAppsQuery, z } from '@weft/contracts';
import { defineRoute, type AnyRoute } from '../../http/define-route';

const AppPath = z.object({ app_id: IdParam });

export const listAppsRoute = defineRoute({
  method: 'get',
  path: '/apps',
  summary: 'List apps',
  tags: ['apps'],
  auth: 'api',
  request: { query: ListAppsQuery },
  responses: { 200: { description: 'A page of apps, newest first', schema: AppPageSchema } },
  handler: async ({ deps, auth, query }) => ({
    status: 200,
    body: await listApps(deps.db, auth.organizationId, query),
  }),
});

export const getAppRoute = defineRoute({
  method: 'get',
  path: '/apps/:app_id',
  summary: 'Get an app with its inputs and outputs',
  tags: ['apps'],
  auth: 'api',
  request: { params: AppPath },
  responses: {
    200: { description: 'The app', schema: AppSchema },
    404: { description: 'App not found or not accessible', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => ({
    status: 200,
    body: await getApp(deps.db, auth.organizationId, params.app_id),
  }),
});

export const createAppRoute = defineRoute({
  method: 'post',
  path: '/apps',
  summary: 'Create an app over an agent the caller can read',
  tags: ['apps'],
  auth: 'api',
  request: { body: CreateAppBody },
  responses: { 201: { description: 'The app', schema: AppSchema } },
  handler: async ({ deps, auth, body }) => ({
    status: 201,
    body: await createApp(deps.db, auth.organizationId, body),
  }),
});

export const appRoutes = [listAppsRoute, getAppRoute, createAppRoute] as AnyRoute[];
