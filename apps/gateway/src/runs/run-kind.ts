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
import type { GatewayDeps } from '../deps';
import type { ResponseSpec } from '../http/define-route';

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
export type RunDeps = Pick<GatewayDeps, 'db' | 'engine' | 'endedRuns' | 'webhookKeyring'>;

/**
 * What sets agent runs and app runs apart. Both are rows of one table, created
 * by one engine call and read by one statement; one implementation serves
 * both kinds and takes from here what differs: which fields the records
 * show, and the paths, schemas and descriptions of the routes (what a create
 * resolves and how it refuses inputs is the engine's, by the kind's name).
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
