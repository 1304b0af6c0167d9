import {
  CreateRunBody,
  ErrorBody,
  ListRunsQuery,
  ReviewDecisionBody,
  RunPageSchema,
  RunSchema,
  ValidationErrorBody,
  IdParam,
  z,
} from '@weft/contracts';
import { defineRoute, type AnyRoute } from '../../http/define-route';
import { createAgentRun } from '../../runs/create-agent-run';
import { getRun } from '../../runs/get-run';
import { listRuns } from '../../runs/list-runs';

const RunPath = z.object({ run_id: IdParam });
const ReviewPath = z.object({ run_id: IdParam, review_id: IdParam });

export const listRunsRoute = defineRoute({
  method: 'get',
  path: '/runs',
  summary: "List the organization's agent runs",
  tags: ['runs'],
  auth: 'api',
  request: { query: ListRunsQuery },
  responses: { 200: { description: 'A page of agent runs, newest first', schema: RunPageSchema } },
  handler: async ({ deps, auth, query }) => ({
    status: 200,
    body: await listRuns(deps.db, auth.organizationId, query),
  }),
});

export const createRunRoute = defineRoute({
  method: 'post',
  path: '/runs',
  summary: 'Run an agent',
  tags: ['runs'],
  auth: 'api',
  rateLimit: 'create',
  request: { body: CreateRunBody },
  responses: {
    201: {
      description:
        'The run, created (201 like POST /app-runs): in_progress, or failed at once with insufficient_credits',
      schema: RunSchema,
    },
    404: { description: 'Agent not found or not accessible', schema: ErrorBody },
    409: { description: 'external_id already claimed; carries existing_id', schema: ErrorBody },
    422: { description: 'Invalid body or inputs; nothing is claimed', schema: ValidationErrorBody },
  },
  handler: async ({ deps, auth, body }) => ({
    status: 201,
    body: await createAgentRun(deps.db, deps.engine, deps.agents, deps.endedRuns, auth.organizationId, body),
  }),
});

export const getRunRoute = defineRoute({
  method: 'get',
  path: '/runs/:run_id',
  summary: 'Get an agent run',
  tags: ['runs'],
  auth: 'api',
  request: { params: RunPath },
  responses: {
    200: { description: 'The run, with its pending reviews', schema: RunSchema },
    404: { description: 'Run not found or not accessible', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => ({
    status: 200,
    body: await getRun(deps.db, deps.endedRuns, auth.organizationId, params.run_id),
  }),
});

export const cancelRunRoute = defineRoute({
  method: 'delete',
  path: '/runs/:run_id',
  summary: 'Cancel an agent run (running, queued or waiting for review)',
  tags: ['runs'],
  auth: 'api',
  request: { params: RunPath },
  responses: {
    204: { description: 'Canceled: the run ends as canceled within seconds' },
    404: { description: 'Run not found or not accessible', schema: ErrorBody },
    409: { description: 'The run has already ended; nothing changed', schema: ErrorBody },
  },
  handler: async ({ deps, auth, params }) => {
    await deps.engine.cancelRun(auth.organizationId, params.run_id, 'agent');
    return { status: 204 };
  },
});

export const decideReviewRoute = defineRoute({
  method: 'post',
  path: '/runs/:run_id/reviews/:review_id',
  summary: 'Approve or retry a pending human review',
  tags: ['runs'],
  auth: 'api',
  request: { params: ReviewPath, body: ReviewDecisionBody },
  responses: {
    204: {
      description:
        'Decided: the run continues (approve), or the nodes upstream of the review back to the nearest ' +
        'provider nodes run again and the review proposes their new output (retry)',
    },
    404: { description: 'Run or review not found or not accessible', schema: ErrorBody },
    409: { description: 'The review is not pending (already decided, or the run has ended)', schema: ErrorBody },
    422: { description: 'Bad decision or output', schema: ValidationErrorBody },
  },
  handler: async ({ deps, auth, params, body }) => {
    await deps.engine.decideReview(auth.organizationId, params.run_id, params.review_id, body);
    return { status: 204 };
  },
});

export const runRoutes = [listRunsRoute, createRunRoute, getRunRoute, cancelRunRoute, decideReviewRoute] as AnyRoute[];
