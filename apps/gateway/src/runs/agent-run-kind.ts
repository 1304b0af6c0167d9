import { agentTargetOf } from '@weft/catalog';
import {
  CreateRunBody,
  ErrorBody,
  ListRunsQuery,
  RunPageSchema,
  RunSchema,
  ValidationErrorBody,
} from '@weft/contracts';
import { agentInputs } from '@weft/dag';
import { ValidationError } from '@weft/errors';
import { agentInputSpecs } from './input-specs';
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

  /**
   * The agent must be readable by the caller (own, shared or public) and have
   * an active version. It comes from the catalog cache, which every instance
   * empties of an agent as soon as a new version is published: a create
   * racing a publish is pinned to either version.
   */
  async resolve({ agents, engine }, orgId, body) {
    const target = agentTargetOf(await agents.stored(orgId, body.agent_id), body.agent_id);
    const { graph } = await engine.versions.version(target.agentVersionId);
    return {
      ...target,
      catalogId: body.agent_id,
      appId: null,
      inputs: agentInputSpecs(agentInputs(graph.flow)),
    };
  },

  rejectInputs: (issues) => new ValidationError(issues),

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
