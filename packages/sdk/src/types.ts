import type { components, paths } from './generated/openapi';

// Names for the schemas of the OpenAPI document (src/generated/openapi.ts).

type Schemas = components['schemas'];

export type Agent = Schemas['Agent'];
export type AgentSummary = Schemas['AgentSummary'];
export type App = Schemas['App'];
export type AppSummary = Schemas['AppSummary'];
export type Run = Schemas['Run'];
export type RunSummary = Schemas['RunSummary'];
export type AppRun = Schemas['AppRun'];
export type AppRunSummary = Schemas['AppRunSummary'];
export type RunInput = Schemas['RunInput'];
export type RunResult = Schemas['RunResult'];
export type RunStatus = Schemas['FlowRunStatus'];
export type FailureReason = Schemas['FailureReason'];
export type PendingReview = Schemas['PendingReview'];
export type ReviewOutput = Schemas['ReviewOutput'];
export type Asset = Schemas['Asset'];
export type AssetSummary = Schemas['AssetSummary'];
export type AssetVisibility = Schemas['AssetVisibility'];
export type Credential = Schemas['Credential'];
export type NodeTypeInfo = Schemas['NodeTypeInfo'];
export type ChosenNodeRoute = Schemas['ChosenNodeRoute'];
/** A chunk of the text a node produces as it comes (an `llm` node streaming its answer), as a `delta` event carries it. */
export type RunDelta = Schemas['RunDeltaEvent'];

type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? Omit<NonNullable<Q>, 'cursor'>
  : never;

export type ListAgentsQuery = QueryOf<'/agents'>;
export type ListAppsQuery = QueryOf<'/apps'>;
export type ListRunsQuery = QueryOf<'/runs'>;
export type ListAppRunsQuery = QueryOf<'/app-runs'>;
export type ListAssetsQuery = QueryOf<'/assets'>;

/** An agent run or an app run, as `GET /runs/{id}` or `GET /app-runs/{id}` returns it. */
export type AnyRun = Run | AppRun;

/** Which resource a run is: an agent run (`/runs`) or an app run (`/app-runs`). */
export type RunKind = 'agent' | 'app';

/** A run named by kind and id, or the run record itself (its `app_id` says it is an app run). */
export type RunRef = AnyRun | { kind: RunKind; id: string };

export function runKindOf(run: RunRef): RunKind {
  if ('kind' in run) return run.kind;
  return 'app_id' in run ? 'app' : 'agent';
}

export const RUN_PATHS: Record<RunKind, '/runs' | '/app-runs'> = { agent: '/runs', app: '/app-runs' };

/** A run's status is final once it is no longer in_progress. */
export function hasEnded(run: { status: RunStatus }): boolean {
  return run.status !== 'in_progress';
}
