import type {
  Agent,
  AgentInput,
  AgentOutput,
  AgentSummary,
  App,
  AppInput,
  AppSummary,
  FlowVisibilitySchema,
  AppVisibilitySchema,
} from '@weft/contracts';
import type { z } from '@weft/contracts';

// Database rows → the response shapes of agents and apps (the OpenAPI document). Optional
// fields with a documented default (`tags`, `inputs`, `has_human_review`, …)
// are always present so clients never have to apply defaults themselves.

type FlowVisibility = z.infer<typeof FlowVisibilitySchema>;
type AppVisibility = z.infer<typeof AppVisibilitySchema>;

export interface AgentRow {
  id: string;
  name: string;
  description: string;
  tags: string[] | null;
  visibility: FlowVisibility;
  estimatedCost: number;
}

export interface VersionRow {
  version: number;
  inputs: unknown;
  outputs: unknown;
  hasHumanReview: boolean;
}

export function toAgent(agent: AgentRow, version: VersionRow): Agent {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    tags: agent.tags ?? [],
    inputs: version.inputs as AgentInput[],
    outputs: version.outputs as AgentOutput[],
    estimated_cost: agent.estimatedCost,
    has_human_review: version.hasHumanReview,
    visibility: agent.visibility,
    version: version.version,
  };
}

/** An agent without an active version: what POST /agents answers when no flow was given. */
export function toDraftAgent(agent: AgentRow): Agent {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    tags: agent.tags ?? [],
    inputs: [],
    outputs: [],
    estimated_cost: agent.estimatedCost,
    has_human_review: false,
    visibility: agent.visibility,
  };
}

/** An agent with what its active version adds to a summary (null while it has none). */
export interface AgentSummaryRow extends AgentRow {
  createdAt: Date;
  inputs: unknown;
  hasHumanReview: boolean | null;
}

export function toAgentSummary(agent: AgentSummaryRow): AgentSummary {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    tags: agent.tags ?? [],
    estimated_cost: agent.estimatedCost,
    visibility: agent.visibility,
    inputs: (agent.inputs as AgentInput[] | null) ?? [],
    has_human_review: agent.hasHumanReview ?? false,
  };
}

export interface AppRow {
  id: string;
  agentId: string;
  name: string;
  description: string;
  avatarUrl: string | null;
  visibility: AppVisibility;
  estimatedCost: number;
  inputs: unknown;
  outputs: unknown;
}

export function toApp(app: AppRow): App {
  return {
    id: app.id,
    name: app.name,
    description: app.description,
    avatar_url: app.avatarUrl,
    visibility: app.visibility,
    inputs: app.inputs as AppInput[],
    outputs: app.outputs as AgentOutput[],
    estimated_cost: app.estimatedCost,
    agent_id: app.agentId,
  };
}

export type AppSummaryRow = Omit<AppRow, 'outputs' | 'agentId'> & { createdAt: Date };

export function toAppSummary(app: AppSummaryRow): AppSummary {
  return {
    id: app.id,
    name: app.name,
    description: app.description,
    avatar_url: app.avatarUrl,
    visibility: app.visibility,
    estimated_cost: app.estimatedCost,
    inputs: app.inputs as AppInput[],
  };
}
