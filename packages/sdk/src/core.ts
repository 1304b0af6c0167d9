import createClient, { type Client } from 'openapi-fetch';
import { WeftApiError, WeftError } from './errors';
import { followRun, followStream, type FollowOptions, type RunEvent } from './events';
import type { paths } from './generated/openapi';
import { paginate } from './pagination';
import { DEFAULT_RETRY, type RetryOptions } from './retry';
import { RunResource } from './runs';
import { Transport, unwrap, type FetchLike } from './transport';
import type {
  Agent,
  AgentSummary,
  AnyRun,
  App,
  AppSummary,
  Asset,
  AssetSummary,
  AssetVisibility,
  Credential,
  ListAgentsQuery,
  ListAppsQuery,
  ListAssetsQuery,
  ChosenNodeRoute,
  NodeTypeInfo,
  PendingReview,
  ReviewOutput,
  RunDelta,
  RunRef,
} from './types';
import { runKindOf } from './types';

// What the Node client and the browser client share: every verb that sends and
// reads JSON or follows events. Nothing here may import node:* (the browser
// entry bundles it; browser-bundle.test.ts checks).

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export interface WeftClientOptions {
  /** The gateway, e.g. https://weft.example.com (default: $WEFT_URL, else http://127.0.0.1:8080). */
  baseUrl?: string;
  /** An API key, sent as X-Api-Key (default: $WEFT_API_KEY). */
  apiKey?: string;
  /** A bearer token instead: a JWT, or the operator's ADMIN_TOKEN for /admin routes. */
  token?: string;
  /** The active organization, for tokens that belong to several (X-Organization-Id). */
  organizationId?: string;
  /** Retries of 429, 5xx and broken connections (see RetryOptions for the defaults). */
  retry?: Partial<RetryOptions>;
  /** Per attempt of an ordinary request (default 30 s); streams, uploads and downloads have none. */
  timeoutMs?: number;
  /** Another fetch (default: the global one). */
  fetch?: FetchLike;
  /** Defaults for following runs (polling intervals, reconnect delay). */
  follow?: Omit<FollowOptions, 'signal'>;
}

/** A decision on a review: approve (with the proposal as it is, or an edited or reduced output) or retry. */
export type ReviewDecision = { decision: 'approve'; output?: ReviewOutput } | { decision: 'retry' };

export interface UploadOptions {
  /** Display name; by default the file's own (a path's base name), else "upload". */
  filename?: string;
  /** Idempotency key (1 to 255 characters): a second upload with it returns the first asset. */
  externalId?: string;
  visibility?: AssetVisibility;
  signal?: AbortSignal;
}

export interface WaitOptions extends FollowOptions {
  /** Called with every event (a `run` snapshot, a `node` change, the `end`). */
  onEvent?: (event: RunEvent) => void | Promise<void>;
  /** Called with each delta: text a node produces as it comes (an `llm` node streaming its answer). */
  onDelta?: (delta: RunDelta) => void | Promise<void>;
  /**
   * Called once for each review that waits: return a decision to send, or
   * undefined to leave the review to someone else (the wait goes on).
   */
  onReview?: (review: PendingReview, run: AnyRun) => ReviewDecision | undefined | Promise<ReviewDecision | undefined>;
}

/**
 * The verbs of the Weft API that need no file system. Lists are async
 * iterators over every page; creates that carry an external_id are retried
 * and, when the key is already claimed, resolve to the object that holds it.
 */
export class WeftCore {
  /** The typed client of every route of the OpenAPI document, for what the verbs below do not cover. */
  readonly api: Client<paths>;
  readonly transport: Transport;
  readonly followDefaults: Omit<FollowOptions, 'signal'>;
  protected readonly retry: RetryOptions;

  readonly runs: RunResource<'agent'>;
  readonly appRuns: RunResource<'app'>;

  constructor(options: WeftClientOptions = {}) {
    // A browser has no process: there the options alone configure the client.
    const env = typeof process === 'object' ? process.env : {};
    const baseUrl = (options.baseUrl ?? env.WEFT_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
      throw new WeftError(`The base URL must be an http:// or https:// URL, got "${baseUrl}"`);
    }
    const apiKey = options.apiKey ?? (options.token ? undefined : env.WEFT_API_KEY);
    const headers: Record<string, string> = {};
    if (apiKey) headers['x-api-key'] = apiKey;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.organizationId) headers['x-organization-id'] = options.organizationId;
    const fetchImpl: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.transport = new Transport({
      baseUrl,
      headers,
      retry: this.retry,
      timeoutMs: options.timeoutMs ?? 30_000,
      fetch: fetchImpl,
    });
    this.api = createClient<paths>({ baseUrl, headers, fetch: this.transport.fetchWith() });
    this.followDefaults = options.follow ?? {};
    this.runs = new RunResource(this, 'agent');
    this.appRuns = new RunResource(this, 'app');
  }

  readonly agents = {
    /** Every agent the query selects (by default the caller organization's own), page after page. */
    list: (query: ListAgentsQuery = {}, options: { signal?: AbortSignal } = {}): AsyncGenerator<AgentSummary> =>
      paginate((cursor) =>
        unwrap('GET', this.api.GET('/agents', { params: { query: { ...query, cursor } }, signal: options.signal })),
      ),
    get: (agentId: string, options: { signal?: AbortSignal } = {}): Promise<Agent> =>
      unwrap(
        'GET',
        this.api.GET('/agents/{agent_id}', { params: { path: { agent_id: agentId } }, signal: options.signal }),
      ),
  };

  readonly apps = {
    list: (query: ListAppsQuery = {}, options: { signal?: AbortSignal } = {}): AsyncGenerator<AppSummary> =>
      paginate((cursor) =>
        unwrap('GET', this.api.GET('/apps', { params: { query: { ...query, cursor } }, signal: options.signal })),
      ),
    get: (appId: string, options: { signal?: AbortSignal } = {}): Promise<App> =>
      unwrap('GET', this.api.GET('/apps/{app_id}', { params: { path: { app_id: appId } }, signal: options.signal })),
  };

  readonly assets = this.assetReads();

  readonly credentials = {
    list: (options: { signal?: AbortSignal } = {}): AsyncGenerator<Credential> =>
      paginate(async () => ({
        ...(await unwrap('GET', this.api.GET('/credentials', { signal: options.signal }))),
        has_more: false,
        next_cursor: null,
      })),
  };

  readonly nodeRoutes = {
    /** The organization's choices of provider per node type. */
    list: (options: { signal?: AbortSignal } = {}): AsyncGenerator<ChosenNodeRoute> =>
      paginate(async () => ({
        ...(await unwrap('GET', this.api.GET('/node-routes', { signal: options.signal }))),
        has_more: false,
        next_cursor: null,
      })),
  };

  readonly nodeTypes = {
    list: (options: { signal?: AbortSignal } = {}): AsyncGenerator<NodeTypeInfo> =>
      paginate(async () => ({
        ...(await unwrap('GET', this.api.GET('/node-types', { signal: options.signal }))),
        has_more: false,
        next_cursor: null,
      })),
  };

  /** Approves or retries a review of a run (agent or app run: the path names the run either way). */
  async decideReview(
    run: RunRef | string,
    reviewId: string,
    decision: ReviewDecision,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const runId = typeof run === 'string' ? run : run.id;
    await unwrap(
      'POST',
      this.api.POST('/runs/{run_id}/reviews/{review_id}', {
        params: { path: { run_id: runId, review_id: reviewId } },
        body: decision,
        signal: options.signal,
      }),
    );
  }

  /** Cancels a run: true when this call ended it, false when it had already ended (409). */
  cancel(run: RunRef, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    return this.runsOf(run).cancel(run.id, options);
  }

  /** The events of a run until it ends (the stream, or polling where there is none). */
  follow(run: RunRef, options: FollowOptions = {}): AsyncGenerator<RunEvent> {
    return followRun(this.runSource(), runKindOf(run), run.id, { ...this.followDefaults, ...options });
  }

  /**
   * The deltas of a run (text its nodes produce as they go: an `llm` node's
   * answer as it is written), until the run ends. Deltas are not stored: only
   * those sent while following come, none from before, and none where the run
   * is polled. `index` 0 starts a node's text (again, when it is executed again).
   */
  async *deltas(run: RunRef, options: FollowOptions = {}): AsyncGenerator<RunDelta, void, undefined> {
    const events = followStream(this.runSource(), runKindOf(run), run.id, { ...this.followDefaults, ...options }, true);
    for await (const event of events) {
      if (event.type === 'delta') yield event.delta;
    }
  }

  /**
   * Follows a run until it ends and resolves to its final record, calling
   * `onEvent` with each event, `onDelta` with each delta and `onReview` with
   * each review that waits.
   * Aborting the signal stops the wait, not the run.
   */
  async wait(run: RunRef, options: WaitOptions = {}): Promise<AnyRun> {
    const asked = new Set<string>();
    const kind = runKindOf(run);
    const decide = async (record: AnyRun) => {
      for (const review of record.pending_reviews ?? []) {
        if (asked.has(review.id)) continue;
        asked.add(review.id);
        const decision = await options.onReview!(review, record);
        if (!decision) continue;
        const body: ReviewDecision =
          decision.decision === 'approve'
            ? { decision: 'approve', output: decision.output ?? review.proposed_output }
            : decision;
        try {
          await this.decideReview(record.id, review.id, body, options);
        } catch (err) {
          // Decided elsewhere meanwhile, or the run ended: the events say what happened.
          if (!(err instanceof WeftApiError && err.status === 409)) throw err;
        }
      }
    };
    const { onDelta } = options;
    const events = onDelta
      ? followStream(this.runSource(), kind, run.id, { ...this.followDefaults, ...options }, true)
      : this.follow(run, options);
    for await (const event of events) {
      if (event.type === 'delta') {
        await onDelta?.(event.delta);
        continue;
      }
      await options.onEvent?.(event);
      if (event.type === 'end') return event.run;
      if (!options.onReview) continue;
      if (event.type === 'run' && event.run.awaiting_human_review) await decide(event.run);
      // A node waiting for review: its review (id, proposal) is read from the run.
      if (event.type === 'node' && event.node.status === 'waiting_review') {
        await decide(await this.runsOf({ kind, id: run.id }).get(run.id, options));
      }
    }
    throw new WeftError(`The events of run ${run.id} ended without its end`);
  }

  /** @internal */
  runsOf(run: RunRef): RunResource<'agent'> | RunResource<'app'> {
    return runKindOf(run) === 'app' ? this.appRuns : this.runs;
  }

  /**
   * The asset that holds `externalId`, after an upload answered 409 for it;
   * undefined when none is visible.
   */
  protected async assetHolding(externalId: string, options: { signal?: AbortSignal }): Promise<Asset | undefined> {
    const existing = await first(this.assets.list({ external_id: externalId, limit: 1 }, options));
    return existing ? this.assets.get(existing.id, options) : undefined;
  }

  /** The `assets` verbs that read and delete: a method, so that a subclass's `assets` can add to them. */
  protected assetReads() {
    return {
      list: (query: ListAssetsQuery = {}, options: { signal?: AbortSignal } = {}): AsyncGenerator<AssetSummary> =>
        paginate((cursor) =>
          unwrap('GET', this.api.GET('/assets', { params: { query: { ...query, cursor } }, signal: options.signal })),
        ),
      get: (assetId: string, options: { signal?: AbortSignal } = {}): Promise<Asset> =>
        unwrap(
          'GET',
          this.api.GET('/assets/{asset_id}', { params: { path: { asset_id: assetId } }, signal: options.signal }),
        ),
      delete: async (assetId: string, options: { signal?: AbortSignal } = {}): Promise<void> => {
        await unwrap(
          'DELETE',
          this.api.DELETE('/assets/{asset_id}', { params: { path: { asset_id: assetId } }, signal: options.signal }),
        );
      },
    };
  }

  private runSource() {
    return {
      transport: this.transport,
      getRun: (kind: 'agent' | 'app', id: string, signal?: AbortSignal) =>
        (kind === 'app' ? this.appRuns : this.runs).get(id, { signal }) as Promise<AnyRun>,
    };
  }
}

async function first<T>(items: AsyncGenerator<T>): Promise<T | undefined> {
  for await (const item of items) {
    await items.return(undefined);
    return item;
  }
  return undefined;
}
