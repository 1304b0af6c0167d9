import {
  CreateRunBody,
  ErrorBody,
  ListRunsQuery,
  RunPageSchema,
  RunSchema,
  ValidationErrorBody,
} from '@weft/contracts';
import type { RunKind } from './run-kind';

/** Runs of an agent: POST /runs names the agent and the run is pinned to its active version. */
export const agentRunKind: RunKind<'agent'> = {
  name: 'agent',
  path: '/runs',
  tag: 'runs',
  catalogField: 'agent_id',
  showsVersion: true,
  listsReviewWait: true,
  schemas: { create: CreateRunBody, run: RunSchema, page: RunPageSchema, listQuery: ListRunsQuery },

  docs: {
    list: { summary: "List the organization's agent runs", page: 'A page of agent runs, newest first' },
    create: {
      summary: 'Run an agent',
      created: 'The run, created (201 like POST /app-runs): in_progress, or failed at once with insufficient_credits',
      errors: {
        404: { description: 'Agent not found or not accessible', schema: ErrorBody },
        422: { description: 'Invalid body or inputs; nothing is claimed', schema: ValidationErrorBody },
      },
    },
    get: { summary: 'Get an agent run', found: 'The run, with its pending reviews' },
    graph: { summary: "The flow of an agent run's version, as nodes and edges" },
    events: { summary: 'Follow an agent run live (Server-Sent Events)' },
    cancel: { summary: 'Cancel an agent run (running, queued or waiting for review)' },
  },
};
