import type { WeftCore } from './core';
import { WeftApiError, WeftError } from './errors';
import { paginate, type CursorPage } from './pagination';
import { unwrap } from './transport';
import type {
  AppRun,
  AppRunSummary,
  ListAppRunsQuery,
  ListRunsQuery,
  Run,
  RunInput,
  RunKind,
  RunSummary,
} from './types';

// Agent runs (/runs) and app runs (/app-runs): one resource each, the same verbs.

type RunOf<K extends RunKind> = K extends 'app' ? AppRun : Run;
type SummaryOf<K extends RunKind> = K extends 'app' ? AppRunSummary : RunSummary;
type QueryOf<K extends RunKind> = K extends 'app' ? ListAppRunsQuery : ListRunsQuery;
export type CreateBody<K extends RunKind> = (K extends 'app' ? { app_id: string } : { agent_id: string }) & {
  inputs?: RunInput[];
  external_id?: string;
};

export interface Created<R> {
  run: R;
  /** False when the external_id was already claimed and `run` is the run that holds it. */
  created: boolean;
}

// One set of calls for both paths: openapi-fetch types each path on its own, and these two are the same shape.
type LooseApi = {
  GET(path: string, init: unknown): Promise<{ data?: never; error?: unknown; response: Response }>;
  POST(path: string, init: unknown): Promise<{ data?: never; error?: unknown; response: Response }>;
  DELETE(path: string, init: unknown): Promise<{ data?: never; error?: unknown; response: Response }>;
};

export class RunResource<K extends RunKind> {
  readonly path: '/runs' | '/app-runs';

  constructor(
    private readonly client: WeftCore,
    readonly kind: K,
  ) {
    this.path = kind === 'app' ? '/app-runs' : '/runs';
  }

  private get api(): LooseApi {
    return this.client.api as unknown as LooseApi;
  }

  /** Every run the query selects, newest first, page after page. */
  list(query: QueryOf<K> = {} as QueryOf<K>, options: { signal?: AbortSignal } = {}): AsyncGenerator<SummaryOf<K>> {
    return paginate((cursor) =>
      unwrap<CursorPage<SummaryOf<K>>>(
        'GET',
        this.api.GET(this.path, { params: { query: { ...query, cursor } }, signal: options.signal }),
      ),
    );
  }

  get(runId: string, options: { signal?: AbortSignal } = {}): Promise<RunOf<K>> {
    return unwrap<RunOf<K>>(
      'GET',
      this.api.GET(`${this.path}/{run_id}`, { params: { path: { run_id: runId } }, signal: options.signal }),
    );
  }

  /**
   * Starts a run. With an external_id the request is retried on 5xx and broken
   * connections too, and a 409 (the key already claimed, by this request's
   * earlier attempt or by another) resolves to the run that holds it, read with
   * `GET ?external_id=` (docs/api.md#idempotency-with-external_id).
   */
  async create(body: CreateBody<K>, options: { signal?: AbortSignal } = {}): Promise<Created<RunOf<K>>> {
    const key = body.external_id;
    const outcome = await this.api.POST(this.path, {
      body,
      signal: options.signal,
      fetch: this.client.transport.fetchWith(key ? 'all' : 'rate-limit'),
    });
    if (outcome.response.status === 409 && key) {
      return { run: await this.holderOf(key, body, options.signal), created: false };
    }
    return { run: await unwrap<RunOf<K>>('POST', Promise.resolve(outcome)), created: true };
  }

  /** True when this call canceled the run, false when it had already ended (409). */
  async cancel(runId: string, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    try {
      await unwrap(
        'DELETE',
        this.api.DELETE(`${this.path}/{run_id}`, { params: { path: { run_id: runId } }, signal: options.signal }),
      );
      return true;
    } catch (err) {
      if (err instanceof WeftApiError && err.status === 409) return false;
      throw err;
    }
  }

  /**
   * The run that holds `key`. Agent runs and app runs share one key space: a key
   * held by a run of the other kind, or of another agent or app, is not this
   * request's run, and is reported rather than followed.
   */
  private async holderOf(key: string, body: CreateBody<K>, signal?: AbortSignal): Promise<RunOf<K>> {
    for await (const summary of this.list({ external_id: key, limit: 1 } as QueryOf<K>, { signal })) {
      const run = await this.get(summary.id, { signal });
      const target = 'app_id' in body ? ['app_id', body.app_id] : ['agent_id', body.agent_id];
      const held = (run as Record<string, unknown>)[target[0]!];
      if (held !== target[1]) {
        throw new WeftError(
          `external_id "${key}" already names run ${run.id} of another ${this.kind} (${String(held)}); ` +
            'use another external_id',
        );
      }
      return run;
    }
    const other = this.kind === 'app' ? this.client.runs : this.client.appRuns;
    for await (const summary of other.list({ external_id: key, limit: 1 }, { signal })) {
      throw new WeftError(
        `external_id "${key}" already names ${other.kind} run ${summary.id}; agent runs and app runs share ` +
          'one key space: use another external_id',
      );
    }
    throw new WeftError(`external_id "${key}" is claimed, but no run holding it is visible`);
  }
}
