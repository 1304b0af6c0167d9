import http from 'node:http';
import type { Account, FileObject, Prediction } from 'replicate';
import sharp from 'sharp';
import { startLoopbackServer } from './loopback-server';

// A loopback server speaking Replicate's HTTP API (v1) as it documents it:
// predictions created by model or version (Prefer: wait honoured), polled
// from starting through processing to their end, cancelled; files uploaded
// through /files; /account for a key's check; errors as problem JSON
// ({title, detail, status}). Every request is recorded; outcomes are
// scripted. Output files are served by the double itself.

/** How the double answers prediction creations from now on. */
export type ReplicateOutcome =
  /** 201 and a prediction following the script. */
  | 'ok'
  /** 401 problem JSON on every request. */
  | 'unauthorized'
  /** 422 problem JSON (input validation failed). */
  | 'invalid_input'
  /** One 429 with Retry-After: 1, then ok. */
  | 'rate_limited_then_ok'
  /** 500 problem JSON on every request. */
  | 'server_error'
  /** Never answers the creation. */
  | 'stall';

/** How a created prediction lives. */
export interface PredictionScript {
  /** Polls answered `processing` before the prediction ends. */
  polls: number;
  end: 'succeeded' | 'failed';
  /** The prediction's `error` when it fails. */
  error: string;
  /** Stays `processing` until release(id) (whatever `polls` says). */
  hold: boolean;
  /** Its output, from its model (owner/name, or the version) and input; default: see `defaultOutput`. */
  output?: (model: string, input: Record<string, unknown>) => unknown;
  /** Its metrics once ended (predict_time and, for language models, token counts). */
  metrics: Record<string, number>;
}

export interface ReplicateRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  prefer: string | undefined;
  body: Record<string, unknown> & { input?: Record<string, unknown>; version?: string };
}

export interface ReplicateUpload {
  id: string;
  bytes: Buffer;
  contentType: string;
}

export interface ReplicateDouble {
  /** REPLICATE_BASE_URL: http://127.0.0.1:<port>/v1 */
  baseURL: string;
  /** The token a request must carry (any when undefined). */
  token: string | undefined;
  requests: ReplicateRequest[];
  uploads: ReplicateUpload[];
  /** Every prediction created, by id, as it is now. */
  predictions: Map<string, Prediction>;
  respond(outcome: ReplicateOutcome): void;
  /** The script of predictions created from now on (over the defaults). */
  script(script: Partial<PredictionScript>): void;
  /** The next `n` polls answer 503 (then as scripted). */
  failPolls(n: number): void;
  /** The next `n` cancels answer 500 and leave the prediction running (then they cancel). */
  failCancels(n: number): void;
  /** Ends a held prediction as its script says. */
  release(id: string): void;
  /** Serves `bytes` at a URL of the double (as replicate.delivery serves outputs); the URL. */
  serve(name: string, bytes: Buffer, contentType: string): string;
  /** Creations received (by model or by version). */
  creates(): ReplicateRequest[];
  /** Cancels received, by prediction id. */
  cancels(): string[];
  close(): Promise<void>;
}

const DEFAULT_SCRIPT: PredictionScript = {
  polls: 2,
  end: 'succeeded',
  error: '',
  hold: false,
  metrics: { predict_time: 2.5 },
};

interface Live {
  prediction: Prediction;
  script: PredictionScript;
  polls: number;
  /** Creations with Prefer: wait waiting for it to end. */
  waiters: (() => void)[];
}

export async function startReplicateDouble(): Promise<ReplicateDouble> {
  let outcome: ReplicateOutcome = 'ok';
  let script: PredictionScript = { ...DEFAULT_SCRIPT };
  let pollFailures = 0;
  let cancelFailures = 0;
  const live = new Map<string, Live>();
  const files = new Map<string, { bytes: Buffer; contentType: string }>();
  let base = '';
  let origin = '';
  let count = 0;

  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366ff' } })
    .png()
    .toBuffer();
  files.set('out.png', { bytes: png, contentType: 'image/png' });

  /** What a model answers unless the script says: tokens for language models, images else. */
  function defaultOutput(model: string, input: Record<string, unknown>): unknown {
    if (/llama|instruct|chat/.test(model)) return ['echo', ': ', String(input.prompt ?? '')];
    const n = typeof input.num_outputs === 'number' ? input.num_outputs : 1;
    return n === 1 && !('num_outputs' in input)
      ? `${origin}/files/out/out.png`
      : Array.from({ length: n }, () => `${origin}/files/out/out.png`);
  }

  function end(entry: Live) {
    const p = entry.prediction;
    if (p.status === 'succeeded' || p.status === 'failed' || p.status === 'canceled') return;
    const model = p.model || p.version;
    if (entry.script.end === 'succeeded') {
      p.status = 'succeeded';
      p.output = (entry.script.output ?? defaultOutput)(model, p.input as Record<string, unknown>);
    } else {
      p.status = 'failed';
      p.error = entry.script.error;
    }
    p.logs = `${p.logs ?? ''}done\n`;
    p.metrics = { ...entry.script.metrics } as Prediction['metrics'];
    p.completed_at = new Date().toISOString();
    for (const w of entry.waiters.splice(0)) w();
  }

  const double: ReplicateDouble = {
    baseURL: '',
    token: undefined,
    requests: [],
    uploads: [],
    predictions: new Map(),
    respond(next) {
      outcome = next;
    },
    script(next) {
      script = { ...DEFAULT_SCRIPT, ...next };
    },
    failPolls(n) {
      pollFailures = n;
    },
    failCancels(n) {
      cancelFailures = n;
    },
    release(id) {
      const entry = live.get(id);
      if (!entry) throw new Error(`no prediction ${id}`);
      end(entry);
    },
    serve(name, bytes, contentType) {
      files.set(name, { bytes, contentType });
      return `${origin}/files/out/${name}`;
    },
    creates: () => double.requests.filter((r) => r.method === 'POST' && /\/predictions$/.test(r.path)),
    cancels: () =>
      double.requests.flatMap((r) => {
        const m = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(r.path);
        return r.method === 'POST' && m ? [m[1]!] : [];
      }),
    close: () => server.close(),
  };

  const server = await startLoopbackServer((req, res, body) =>
    handle(req, res, body).catch((err: unknown) => {
      if (!res.headersSent) problem(res, 500, 'Internal Server Error', String(err));
    }),
  );

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const problem = (
    res: http.ServerResponse,
    status: number,
    title: string,
    detail: string,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
    res.end(JSON.stringify({ title, detail, status }));
  };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '').split('?')[0]!;
    if (method === 'GET' && path.startsWith('/files/out/')) {
      const file = files.get(path.slice('/files/out/'.length));
      if (!file) return problem(res, 404, 'Not found', 'No such file');
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
      return res.end(file.bytes);
    }
    const multipart = (req.headers['content-type'] ?? '').startsWith('multipart/form-data');
    const body = (!multipart && raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {}) as ReplicateRequest['body'];
    double.requests.push({
      method,
      path,
      authorization: req.headers.authorization,
      prefer: req.headers.prefer as string | undefined,
      body,
    });
    if (outcome === 'unauthorized' || (double.token && req.headers.authorization !== `Bearer ${double.token}`)) {
      return problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');
    }
    if (outcome === 'server_error') {
      return problem(res, 500, 'Internal Server Error', 'The server had an error processing the request');
    }
    if (method === 'GET' && path === '/v1/account') {
      const account: Account = { type: 'organization', username: 'weft', name: 'Weft' };
      return send(res, 200, account);
    }
    if (method === 'POST' && path === '/v1/files') {
      const form = await new Request('http://double/', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type']! },
        body: raw,
      }).formData();
      const content = form.get('content');
      if (!(content instanceof Blob)) return problem(res, 400, 'Bad request', 'content is required');
      const id = `file-${++count}`;
      const bytes = Buffer.from(await content.arrayBuffer());
      double.uploads.push({ id, bytes, contentType: content.type });
      const file: FileObject = {
        id,
        content_type: content.type || 'application/octet-stream',
        size: bytes.length,
        checksums: { sha256: '' },
        metadata: {},
        created_at: new Date().toISOString(),
        expires_at: null,
        urls: { get: `${base}/files/${id}` },
      };
      return send(res, 201, file);
    }
    const byModel = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path);
    if (method === 'POST' && (path === '/v1/predictions' || byModel)) return create(req, res, body, byModel);
    const get = /^\/v1\/predictions\/([^/]+)$/.exec(path);
    if (method === 'GET' && get) {
      const entry = live.get(get[1]!);
      if (!entry) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      if (pollFailures > 0) {
        pollFailures--;
        return problem(res, 503, 'Service Unavailable', 'Replicate is temporarily unavailable');
      }
      const p = entry.prediction;
      if (p.status === 'starting') {
        p.status = 'processing';
        p.started_at = new Date().toISOString();
        p.logs = 'loading model\n';
      } else if (p.status === 'processing' && !entry.script.hold) {
        entry.polls++;
        if (entry.polls > entry.script.polls) end(entry);
      }
      return send(res, 200, p);
    }
    const cancel = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(path);
    if (method === 'POST' && cancel) {
      const entry = live.get(cancel[1]!);
      if (!entry) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      if (cancelFailures > 0) {
        cancelFailures--;
        return problem(res, 500, 'Internal Server Error', 'The server had an error processing the request');
      }
      const p = entry.prediction;
      if (p.status === 'starting' || p.status === 'processing') {
        p.status = 'canceled';
        p.completed_at = new Date().toISOString();
        for (const w of entry.waiters.splice(0)) w();
      }
      return send(res, 200, p);
    }
    return problem(res, 404, 'Not found', 'The requested resource could not be found.');
  }

  async function create(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: ReplicateRequest['body'],
    byModel: RegExpExecArray | null,
  ) {
    if (outcome === 'stall') return; // never answers
    if (outcome === 'rate_limited_then_ok') {
      outcome = 'ok';
      return problem(res, 429, 'Request was throttled.', 'Request was throttled. Expected available in 1 second.', {
        'retry-after': '1',
      });
    }
    if (outcome === 'invalid_input') {
      return problem(res, 422, 'Input validation failed', '- input.num_outputs: Must be less than or equal to 4');
    }
    if (!byModel && typeof body.version !== 'string') {
      return problem(res, 422, 'Input validation failed', '- version: version is required');
    }
    const id = `pred${(++count).toString().padStart(8, '0')}`;
    const model = byModel ? `${byModel[1]}/${byModel[2]}` : '';
    const prediction: Prediction = {
      id,
      status: 'starting',
      model,
      version: byModel ? 'hidden' : body.version!,
      input: body.input ?? {},
      source: 'api',
      logs: '',
      data_removed: false,
      created_at: new Date().toISOString(),
      urls: {
        get: `${base}/predictions/${id}`,
        cancel: `${base}/predictions/${id}/cancel`,
        web: `https://replicate.com/p/${id}`,
      },
    };
    const entry: Live = { prediction, script, polls: 0, waiters: [] };
    live.set(id, entry);
    double.predictions.set(id, prediction);
    const prefer = /^wait(?:=(\d+))?$/.exec(String(req.headers.prefer ?? ''));
    if (prefer) {
      // Prefer: wait: a quick model ends within the wait; a held one answers as it is when the wait is over.
      if (!script.hold) end(entry);
      else {
        const seconds = Number(prefer[1] ?? 60);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, seconds * 1000);
          entry.waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    }
    return send(res, 201, prediction);
  }

  origin = `${server.origin}`;
  base = `${origin}/v1`;
  double.baseURL = base;
  return double;
}
