import type {
  AppRun,
  AppRunSummary,
  CreateAppRunBody,
  CreateRunBody,
  ListAppRunsQuery,
  ListRunsQuery,
  Run,
  RunSummary,
  z,
} from '@weft/contracts';
import type { RunKindName } from '@weft/engine';
import type { ValidationIssue } from '@weft/errors';
import type { GatewayDeps } from '../deps';
import type { ResponseSpec } from '../http/define-route';
import type { InputSpec } from './input-specs';

/** What a create request of each kind carries, what its records and list entries are, and its list's query. */
interface KindShapes {
  agent: {
    create: z.output<typeof CreateRunBody>;
    run: Run;
    summary: RunSummary;
    listQuery: typeof ListRunsQuery;
    catalogField: 'agent_id';
  };
  app: {
    create: z.output<typeof CreateAppRunBody>;
    run: AppRun;
    summary: AppRunSummary;
    listQuery: typeof ListAppRunsQuery;
    catalogField: 'app_id';
  };
}

export type CreateBodyOf<K extends RunKindName> = KindShapes[K]['create'];
export type RunOf<K extends RunKindName> = KindShapes[K]['run'];
export type SummaryOf<K extends RunKindName> = KindShapes[K]['summary'];

/** What creating, reading and listing runs use of the gateway. */
export type RunDeps = Pick<GatewayDeps, 'db' | 'engine' | 'agents' | 'endedRuns' | 'webhookKeyring'>;

/** What a create runs, resolved from the catalog before anything is written. */
export interface RunTarget {
  /** The agent or app the record names in its `agent_id` or `app_id`. */
  catalogId: string;
  agentId: string;
  agentVersionId: string;
  appId: string | null;
  estimatedCost: number;
  inputs: InputSpec[];
}

/**
 * What sets agent runs and app runs apart. Both are rows of one table, created
 * by one engine call and read by one statement; one implementation serves
 * both kinds and takes from here what differs: what a create resolves and how
 * it refuses inputs, which fields the records show, and the paths, schemas
 * and descriptions of the routes.
 */
export interface RunKind<K extends RunKindName = RunKindName> {
  name: K;
  /** The collection; a run is at `${path}/:run_id`. */
  path: string;
  tag: string;
  /** The field naming what the run executes, in the create body, the record and the list entry. */
  catalogField: KindShapes[K]['catalogField'];
  /** Whether the record shows the agent version the run is pinned to. */
  showsVersion: boolean;
  /** Whether list entries show `awaiting_human_review` (records of both kinds do). */
  listsReviewWait: boolean;
  /** `listQuery`: the list's filters, the one naming what the runs execute being `catalogField`. */
  schemas: {
    create: z.ZodType<CreateBodyOf<K>>;
    run: z.ZodType;
    page: z.ZodType;
    listQuery: KindShapes[K]['listQuery'];
  };
  /** The agent version a create runs: 404 when the caller cannot read what the body names, 4xx without a version. */
  resolve(deps: RunDeps, orgId: string, body: CreateBodyOf<K>): Promise<RunTarget>;
  /** What a create throws when its inputs break their rules. */
  rejectInputs(issues: ValidationIssue[]): Error;
  docs: {
    list: { summary: string; page: string };
    /** `errors`: the responses of a refused create besides the 409 of a claimed external_id. */
    create: { summary: string; created: string; errors: Record<number, ResponseSpec> };
    get: { summary: string; found: string };
    graph: { summary: string };
    events: { summary: string };
    cancel: { summary: string };
  };
}
