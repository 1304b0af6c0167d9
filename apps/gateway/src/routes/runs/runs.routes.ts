import type { RunKindName } from '@weft/engine';
import { ErrorBody, IdParam, RunGraphSchema, z } from '@weft/contracts';
import { defineRoute, type AnyRoute } from '../../http/define-route';
import { streamStarted } from '../../metrics/http-duration';
import { createRun } from '../../runs/create-run';
import { parseEventId, RunEventsHeaders } from '../../runs/events/event-ids';
import { RUN_EVENTS_DESCRIPTION } from '../../runs/events/events-doc';
import { getRun } from '../../runs/get-run';
import { listRuns } from '../../runs/list-runs';
import { getRunGraph } from '../../runs/run-graph';
import type { RunKind } from '../../runs/run-kind';

/** List, create, get, draw, follow and cancel runs of `kind`, under its path. */
export function runRoutes<K extends RunKindName>(kind: RunKind<K>): AnyRoute[] {
  const { path, tag, docs, schemas } = kind;
  const RunPath = z.object({ run_id: IdParam });

  const list = defineRoute({
    method: 'get',
    path,
    summary: docs.list.summary,
    tags: [tag],
    auth: 'api',
    request: { query: schemas.listQuery },
    responses: { 200: { description: docs.list.page, schema: schemas.page } },
    handler: async ({ deps, auth, query }) => ({
      status: 200,
      body: await listRuns(kind, deps.db, auth.organizationId, query),
    }),
  });

  const create = defineRoute({
    method: 'post',
    path,
    summary: docs.create.summary,
    tags: [tag],
    auth: 'api',
    rateLimit: 'create',
    request: { body: schemas.create },
    responses: {
      201: { description: docs.create.created, schema: schemas.run },
      409: { description: 'external_id already claimed; carries existing_id', schema: ErrorBody },
      ...docs.create.errors,
    },
    handler: async ({ deps, auth, body }) => ({
      status: 201,
      body: await createRun(kind, deps, auth.organizationId, body),
    }),
  });

  const get = defineRoute({
    method: 'get',
    path: `${path}/:run_id`,
    summary: docs.get.summary,
    tags: [tag],
    auth: 'api',
    request: { params: RunPath },
    responses: {
      200: { description: docs.get.found, schema: schemas.run },
      404: { description: 'Run not found or not accessible', schema: ErrorBody },
    },
    handler: async ({ deps, auth, params }) => ({
      status: 200,
      body: await getRun(kind, deps.db, deps.endedRuns, auth.organizationId, params.run_id),
    }),
  });

  const graph = defineRoute({
    method: 'get',
    path: `${path}/:run_id/graph`,
    summary: docs.graph.summary,
    tags: [tag],
    auth: 'api',
    request: { params: RunPath },
    responses: {
      200: {
        description: 'The nodes of the flow the run executes, and the links between them',
        schema: RunGraphSchema,
      },
      404: { description: 'Run not found or not accessible', schema: ErrorBody },
    },
    handler: async ({ deps, auth, params }) => ({
      status: 200,
      body: await getRunGraph(kind, deps, auth.organizationId, params.run_id),
    }),
  });

  const events = defineRoute({
    method: 'get',
    path: `${path}/:run_id/events`,
    summary: docs.events.summary,
    tags: [tag],
    auth: 'api',
    request: { params: RunPath, headers: RunEventsHeaders },
    responses: {
      200: { description: RUN_EVENTS_DESCRIPTION, contentType: 'text/event-stream' },
      404: { description: 'Run not found or not accessible', schema: ErrorBody },
    },
    handler: async ({ deps, auth, params, headers, res }) => {
      const last = headers['Last-Event-ID'];
      await deps.runEvents.open(kind, auth.organizationId, params.run_id, last ? parseEventId(last) : undefined, res);
      streamStarted(res);
      return undefined;
    },
  });

  const cancel = defineRoute({
    method: 'delete',
    path: `${path}/:run_id`,
    summary: docs.cancel.summary,
    tags: [tag],
    auth: 'api',
    request: { params: RunPath },
    responses: {
      204: { description: 'Canceled: the run ends as canceled within seconds' },
      404: { description: 'Run not found or not accessible', schema: ErrorBody },
      409: { description: 'The run has already ended; nothing changed', schema: ErrorBody },
    },
    handler: async ({ deps, auth, params }) => {
      await deps.engine.cancelRun(auth.organizationId, params.run_id, kind.name);
      return { status: 204 };
    },
  });

  return [list, create, get, graph, events, cancel] as AnyRoute[];
}
