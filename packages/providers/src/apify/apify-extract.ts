import { asText, NodeFailure, single, type NodeContext, type NodeResult } from '@weft/nodes';
import type { ActorRun, ApifyClient } from 'apify-client';
import { setTimeout as sleep } from 'node:timers/promises';
import { metered, type Capability, type ProviderCall } from '../capability';
import { abandonJob, nothingToCancel } from '../job-cancels';
import { storeResultUrl } from '../results';
import { DEFAULT_ACTORS, mappingOf, type ExtractorType, type MediaRef } from './apify-actors';
import { apifyFailure } from './apify-failures';
import { withSignal } from './apify-transport';

export interface ExtractSettings {
  /** How long one poll of a run waits on Apify's side for it to finish (waitForFinish, at most 60 s). */
  waitSecs: number;
  /** The least time between two polls, when Apify answers a poll before the wait is over. */
  minPollMs: number;
}

interface ExtractorParams {
  limit: number;
  options?: Record<string, unknown>;
}

/** An item as the node outputs it (apify-actors.ts describes the fields). */
export interface ExtractedItem {
  id: string | null;
  url: string | null;
  text: string | null;
  author: string | null;
  published_at: string | null;
  media: string[];
  raw: Record<string, unknown>;
}

/** The statuses a run ends in (ACT_JOB_TERMINAL_STATUSES of @apify/consts). */
const ENDED = new Set(['SUCCEEDED', 'FAILED', 'TIMED-OUT', 'ABORTED']);
/** The media files stored of one item at most: a carousel of 10, a video and its variants. */
const MEDIA_PER_ITEM = 10;
/** Media downloads at once. */
const DOWNLOADS_AT_ONCE = 4;
/** How long a best-effort abort of the actor run may take before the node stops caring (the sweep retries one that failed). */
const ABORT_WAIT_MS = 5000;

/** Field that lists, in an item's `raw`, the media that could not be stored, and why. */
const SKIPPED_MEDIA = '_weft_skipped_media';

/** Runs `work` over `tasks`, `width` at a time, keeping the order of the results. */
async function pooled<T, R>(tasks: T[], width: number, work: (task: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await work(tasks[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, lane));
  return results;
}

/**
 * The extractor types through an Apify actor: a LONG job. The actor run is
 * recalled (a worker taking the attempt over resumes it) or started and
 * remembered before it is polled; when the node is cancelled or times out the
 * run is aborted, best-effort. The items of its default dataset are read into
 * our shape and their media stored as assets of the run.
 */
export function apifyExtractor(type: ExtractorType, settings: ExtractSettings): Capability<ApifyClient> {
  return {
    defaultModel: DEFAULT_ACTORS[type],
    async execute(ctx: NodeContext, call: ProviderCall<ApifyClient>): Promise<NodeResult> {
      const query = asText(single(ctx, 'query')).trim();
      if (!query) throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the query at input 'query' is empty`);
      const { limit, options } = ctx.params as unknown as ExtractorParams;
      const api = <T>(fn: () => Promise<T>): Promise<T> =>
        withSignal(ctx.signal, fn).catch((err: unknown) => {
          throw apifyFailure(err, ctx.signal, ctx.nodeId, call.credentialSource);
        });

      const recalled = await ctx.providerJobs.recall();
      let runId: string;
      if (recalled?.provider === 'apify') {
        runId = recalled.id;
      } else {
        // The node's own query and limit first: params.options (the actor's settings) win over them.
        const input = { ...mappingOf(call.model).input(query, limit), ...(options ?? {}) };
        // maxItems also caps what a pay-per-result actor charges.
        const started = await api(() => call.client.actor(call.model).start(input, { maxItems: limit }));
        runId = started.id;
        await ctx.providerJobs.remember({ provider: 'apify', id: runId, state: { actor: call.model } });
      }

      const run = await finished(ctx, call.client, runId, settings, api);
      if (run.status !== 'SUCCEEDED') {
        const why = run.statusMessage ? `: ${run.statusMessage.slice(0, 300)}` : '';
        throw new NodeFailure(
          'provider_error',
          `Node '${ctx.nodeId}': the Apify run ${runId} of ${call.model} ended ${run.status}${why}`,
        );
      }
      const list = await api(() => call.client.dataset(run.defaultDatasetId).listItems({ limit, clean: true }));
      const raws = list.items
        .filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object')
        .slice(0, limit);
      const items = await withMedia(ctx, call.model, raws);
      return {
        output: { type: 'data', value: items },
        ...metered(call, { items: items.length, requests: 1 }),
      };
    },
  };
}

/** Aborts an actor run; one that has ended (400) or that Apify does not know has nothing left to abort. */
export async function abortRun(client: ApifyClient, runId: string, signal: AbortSignal): Promise<void> {
  try {
    await withSignal(signal, () => client.run(runId).abort());
  } catch (err) {
    if (!nothingToCancel(err)) throw err;
  }
}

/** Polls the run until it ends; aborts it (best-effort) when the node is cancelled or times out meanwhile. */
async function finished(
  ctx: NodeContext,
  client: ApifyClient,
  runId: string,
  settings: ExtractSettings,
  api: <T>(fn: () => Promise<T>) => Promise<T>,
): Promise<ActorRun> {
  const abort = () => void abandonJob(ctx, (signal) => abortRun(client, runId, signal), ABORT_WAIT_MS);
  ctx.signal.addEventListener('abort', abort, { once: true });
  try {
    for (;;) {
      const asked = Date.now();
      const run = await api(() => client.run(runId).get({ waitForFinish: settings.waitSecs }));
      if (!run) throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': Apify does not know the run ${runId}`);
      if (ENDED.has(run.status)) return run;
      const rest = settings.minPollMs - (Date.now() - asked);
      if (rest > 0) await sleep(rest, undefined, { signal: ctx.signal });
    }
  } finally {
    ctx.signal.removeEventListener('abort', abort);
  }
}

/**
 * The items in our shape, their media stored as assets of the run. A media
 * file that cannot be stored (refused by the outbound rules, gone, not the
 * image or video it claims to be) is left out and named in the item's
 * raw[SKIPPED_MEDIA]: the item stays. Only when items named media and none
 * could be stored does the node fail, with the first file's failure.
 */
async function withMedia(ctx: NodeContext, actor: string, raws: Record<string, unknown>[]): Promise<ExtractedItem[]> {
  const read = raws.map((raw) => mappingOf(actor).read(raw));
  // Asset indexes follow the items' order, so that executing the attempt again stores the same assets.
  const tasks: { item: number; ref: MediaRef; index: number }[] = [];
  read.forEach((item, i) => {
    for (const ref of item.media.slice(0, MEDIA_PER_ITEM)) tasks.push({ item: i, ref, index: tasks.length });
  });
  type Stored = { id: string } | { failure: NodeFailure };
  const stored = await pooled(tasks, DOWNLOADS_AT_ONCE, async (task): Promise<Stored> => {
    try {
      return { id: await storeResultUrl(ctx, task.ref.url, task.index, task.ref.kind) };
    } catch (err) {
      if (ctx.signal.aborted || !(err instanceof NodeFailure)) throw err;
      return { failure: err };
    }
  });
  const failures = stored.flatMap((s) => ('failure' in s ? [s.failure] : []));
  if (tasks.length > 0 && failures.length === tasks.length) throw failures[0]!;
  return read.map((item, i) => {
    const mine = tasks.map((t, k) => ({ ...t, result: stored[k]! })).filter((t) => t.item === i);
    const skipped = mine.flatMap((t) =>
      'failure' in t.result ? [{ url: t.ref.url, reason: t.result.failure.message }] : [],
    );
    return {
      id: item.id,
      url: item.url,
      text: item.text,
      author: item.author,
      published_at: item.published_at,
      media: mine.flatMap((t) => ('id' in t.result ? [t.result.id] : [])),
      raw: skipped.length > 0 ? { ...raws[i]!, [SKIPPED_MEDIA]: skipped } : raws[i]!,
    };
  });
}
