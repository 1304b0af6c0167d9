import type { ActorRun, User } from 'apify-client';
import { itemsOf } from './apify-items';
import { doubleMedia } from './apify-media';
import { startLoopbackServer } from './loopback-server';

// A loopback server speaking Apify's API v2 as apify-client calls it: actor
// runs started, polled (waitForFinish held as Apify holds it), aborted, their
// dataset items listed, the token's user read. Bodies are typed with the
// SDK's own types; errors have Apify's shape {error: {type, message}}. Every
// request is recorded; outcomes are scripted.

/** How the double answers API requests from now on. */
export type ApifyOutcome =
  | 'ok'
  /** 401 to every API request. */
  | 'unauthorized'
  /** 404 to starting an actor. */
  | 'actor_not_found'
  /** One 429 with Retry-After to the next API request, then ok. */
  | 'rate_limited_then_ok'
  /** 500 to every API request. */
  | 'server_error'
  /** Starting an actor never answers. */
  | 'stall';

/** How the runs started from now on go: RUNNING for `polls` polls, then `ending`; `held`: RUNNING until finish() or abort. */
export interface RunScript {
  polls: number;
  ending: 'SUCCEEDED' | 'FAILED' | 'TIMED-OUT' | 'held';
  /** Items of its dataset (default 5), in the actor's shape, naming the double's media. */
  items?: number;
  /** The dataset's items instead, as given. */
  dataset?: Record<string, unknown>[];
  statusMessage?: string;
}

export interface ApifyRequest {
  method: string;
  /** The path, actor ids as sent (`owner~name`). */
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: unknown;
}

export interface DoubleRun {
  id: string;
  actor: string;
  input: unknown;
  status: ActorRun['status'];
  polls: number;
  script: RunScript;
  datasetId: string;
  items: Record<string, unknown>[];
}

export interface ApifyDouble {
  /** APIFY_BASE_URL: the SDK adds /v2. */
  baseUrl: string;
  /** The media the items name: a PNG and an MP4. */
  imageUrl: string;
  videoUrl: string;
  /** Their bytes. */
  png: Buffer;
  mp4: Buffer;
  requests: ApifyRequest[];
  /** By run id, in the order started. */
  runs: Map<string, DoubleRun>;
  respond(outcome: ApifyOutcome): void;
  script(script: RunScript): void;
  /** Ends a held run. */
  finish(runId: string, status?: 'SUCCEEDED' | 'FAILED'): void;
  close(): Promise<void>;
}

const error = (type: string, message: string) => ({ error: { type, message } });

/** The ActorRun Apify answers for `run`. */
function actorRun(run: DoubleRun): ActorRun {
  const ended = !['READY', 'RUNNING'].includes(run.status);
  const now = new Date();
  return {
    id: run.id,
    actId: run.actor.replace('/', '~'),
    userId: 'double-user',
    startedAt: now,
    finishedAt: ended ? now : (null as unknown as Date),
    status: run.status,
    ...(run.script.statusMessage && ended ? { statusMessage: run.script.statusMessage } : {}),
    meta: { origin: 'API', userAgent: 'ApifyClient' },
    stats: {
      inputBodyLen: JSON.stringify(run.input ?? null).length,
      restartCount: 0,
      resurrectCount: 0,
      memAvgBytes: 0,
      memMaxBytes: 0,
      memCurrentBytes: 0,
      cpuAvgUsage: 0,
      cpuMaxUsage: 0,
      cpuCurrentUsage: 0,
      netRxBytes: 0,
      netTxBytes: 0,
      durationMillis: 1000,
      runTimeSecs: 1,
      metamorph: 0,
      computeUnits: 0.01,
    },
    options: { build: 'latest', timeoutSecs: 3600, memoryMbytes: 1024, diskMbytes: 2048 },
    buildId: 'double-build',
    buildNumber: '0.0.1',
    defaultKeyValueStoreId: `kvs-${run.id}`,
    defaultDatasetId: run.datasetId,
    defaultRequestQueueId: `rq-${run.id}`,
    containerUrl: `https://${run.id}.runs.apify.net`,
  };
}

const ME: User = { id: 'double-user', username: 'weft-tests', profile: { name: 'Weft tests' } };

export async function startApifyDouble(token: string): Promise<ApifyDouble> {
  const media = await doubleMedia();
  let outcome: ApifyOutcome = 'ok';
  let script: RunScript = { polls: 0, ending: 'SUCCEEDED' };
  /** Polls held until their run changes: answered with the run as it is then. */
  const held = new Map<string, Set<() => void>>();
  const wake = (runId: string) => {
    for (const answer of held.get(runId) ?? []) answer();
    held.delete(runId);
  };
  let counter = 0;
  const double: ApifyDouble = {
    baseUrl: '',
    imageUrl: '',
    videoUrl: '',
    png: media.png,
    mp4: media.mp4,
    requests: [],
    runs: new Map(),
    respond(next) {
      outcome = next;
    },
    script(next) {
      script = next;
    },
    finish(runId, status = 'SUCCEEDED') {
      const run = double.runs.get(runId);
      if (!run) throw new Error(`no run ${runId}`);
      run.status = status;
      wake(runId);
    },
    close: () => server.close(),
  };

  const server = await startLoopbackServer((req, res, received) => {
    const url = new URL(req.url ?? '/', 'http://double');
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      if (res.writableEnded || res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(payload));
    };
    if (url.pathname.startsWith('/media/')) {
      const file =
        url.pathname === '/media/image.png' ? media.png : url.pathname === '/media/clip.mp4' ? media.mp4 : undefined;
      if (!file) return send(404, error('record-not-found', 'No such file'));
      res.writeHead(200, { 'content-type': url.pathname.endsWith('.png') ? 'image/png' : 'video/mp4' });
      return res.end(file);
    }
    let body: unknown = undefined;
    const raw = received.toString('utf8');
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return send(400, error('invalid-input', 'Input is not valid JSON'));
    }
    double.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      body,
    });
    if (req.headers.authorization !== `Bearer ${token}` || outcome === 'unauthorized') {
      return send(401, error('user-or-token-not-found', 'User was not found or authentication token is not valid'));
    }
    if (outcome === 'server_error') return send(500, error('internal-server-error', 'Internal server error'));
    if (outcome === 'rate_limited_then_ok') {
      outcome = 'ok';
      return send(429, error('rate-limit-exceeded', 'You have exceeded the rate limit of 30 requests per second'), {
        'retry-after': '1',
      });
    }
    const parts = url.pathname.split('/').filter(Boolean);
    const route = `${req.method} /${parts.map((p, i) => (i === 2 ? ':id' : p)).join('/')}`;
    switch (route) {
      case 'GET /v2/users/:id':
        if (parts[2] !== 'me') return send(404, error('record-not-found', 'User was not found'));
        return send(200, { data: ME });
      // apify-client 2.25 says /v2/actors/; /v2/acts/ is the older name of the same routes.
      case 'POST /v2/acts/:id/runs':
      case 'POST /v2/actors/:id/runs': {
        if (outcome === 'stall') return; // never answers
        const actor = decodeURIComponent(parts[2]!).replace('~', '/');
        if (outcome === 'actor_not_found') return send(404, error('record-not-found', 'Actor was not found'));
        const id = `run${++counter}${Math.random().toString(36).slice(2, 8)}`;
        const run: DoubleRun = {
          id,
          actor,
          input: body,
          status: 'RUNNING',
          polls: 0,
          script,
          datasetId: `ds-${id}`,
          items:
            script.dataset ?? itemsOf(actor, script.items ?? 5, { image: double.imageUrl, video: double.videoUrl }),
        };
        double.runs.set(id, run);
        return send(201, { data: actorRun(run) });
      }
      case 'GET /v2/actor-runs/:id': {
        const run = double.runs.get(parts[2]!);
        if (!run) return send(404, error('record-not-found', 'Actor run was not found'));
        if (run.status === 'RUNNING' && run.script.ending !== 'held') {
          if (run.polls < run.script.polls) run.polls++;
          else run.status = run.script.ending as ActorRun['status'];
        }
        if (run.status !== 'RUNNING') return send(200, { data: actorRun(run) });
        // Held: Apify answers when the run changes or waitForFinish seconds have passed.
        const waitMs = Math.min(60, Number(url.searchParams.get('waitForFinish') ?? 0)) * 1000;
        if (run.script.ending !== 'held' || waitMs === 0) return send(200, { data: actorRun(run) });
        const answer = () => {
          clearTimeout(timer);
          send(200, { data: actorRun(run) });
        };
        const timer = setTimeout(() => {
          held.get(run.id)?.delete(answer);
          answer();
        }, waitMs);
        if (!held.has(run.id)) held.set(run.id, new Set());
        held.get(run.id)!.add(answer);
        res.on('close', () => {
          clearTimeout(timer);
          held.get(run.id)?.delete(answer);
        });
        return;
      }
      case 'POST /v2/actor-runs/:id/abort': {
        const run = double.runs.get(parts[2]!);
        if (!run) return send(404, error('record-not-found', 'Actor run was not found'));
        if (run.status === 'RUNNING') run.status = 'ABORTED';
        wake(run.id);
        return send(200, { data: actorRun(run) });
      }
      case 'GET /v2/datasets/:id/items': {
        const run = [...double.runs.values()].find((r) => r.datasetId === parts[2]);
        if (!run) return send(404, error('record-not-found', 'Dataset was not found'));
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const limit = Number(url.searchParams.get('limit') ?? 0) || run.items.length;
        const page = run.items.slice(offset, offset + limit);
        return send(200, page, {
          'x-apify-pagination-total': String(run.items.length),
          'x-apify-pagination-offset': String(offset),
          'x-apify-pagination-limit': String(limit),
          'x-apify-pagination-count': String(page.length),
        });
      }
      default:
        return send(404, error('page-not-found', `We have bad news: there is no API endpoint at this URL (${route})`));
    }
  });
  double.baseUrl = `${server.origin}`;
  double.imageUrl = `${double.baseUrl}/media/image.png`;
  double.videoUrl = `${double.baseUrl}/media/clip.mp4`;
  return double;
}
