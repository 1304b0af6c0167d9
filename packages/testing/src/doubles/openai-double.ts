import http from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type OpenAI from 'openai';
import {
  chatCompletion,
  chatCompletionChunks,
  imagesResponse,
  mediaBytes,
  modelList,
  transcription,
  video as videoBody,
  videoDeleted,
} from './openai-fixtures';
import { startLoopbackServer } from './loopback-server';

/** How the double answers the next requests (a video's polls follow `video` instead). */
export type DoubleOutcome =
  'ok' | 'json' | 'unauthorized' | 'content_policy' | 'bad_request' | 'server_error' | 'rate_limited_then_ok' | 'stall';

export interface RecordedFile {
  name: string;
  type: string;
  bytes: Buffer;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  /** The JSON body, or a multipart body's text fields. */
  body: {
    model?: string;
    messages?: { role: string; content: unknown }[];
    temperature?: number;
    max_tokens?: number;
    response_format?: unknown;
    [k: string]: unknown;
  };
  /** A multipart body's files, by field name (`image[]` of several images is the last). */
  files: Record<string, RecordedFile>;
}

/** How the video jobs created from now on go: `polls` answers in progress, then `end`. */
export interface VideoScript {
  polls: number;
  end: 'completed' | 'failed' | 'moderated';
}

export interface OpenAIDouble {
  /** The base URL an OpenAI client is given (OPENAI_BASE_URL). */
  baseURL: string;
  requests: RecordedRequest[];
  /** From now on, answer this way (`rate_limited_then_ok`: one 429 with Retry-After, then ok). */
  respond(outcome: DoubleOutcome): void;
  /** When set, a key not in it is refused with 401, whatever the outcome. */
  acceptedKeys?: Set<string>;
  /** How long a chat answer takes, in ms (a provider's latency, for benchmarks); 0 by default. */
  chatLatencyMs: number;
  /** Chat requests received and not answered yet. */
  chatsInFlight: number;
  /**
   * Whether a chat request with `stream: true` is answered as a stream (true by
   * default); false plays a server that ignores `stream` and answers JSON.
   */
  streams: boolean;
  /** The pause between the chunks of a streamed answer, in ms (a provider writing as it goes). */
  chunkGapMs: number;
  /** Streamed chat answers whose client hung up before their end (a cancel or timeout reaching the provider). */
  chatsCut: number;
  /** Holds every chat answer until the function returned is called (answers already held then go on). */
  holdChats(): () => void;
  /** The usage every chat answer reports. */
  usage: { prompt_tokens: number; completion_tokens: number };
  /** The token usage gpt-image answers report (per request). */
  imageUsage: { input_tokens: number; output_tokens: number };
  /** The JSON object text a `json` answer holds. */
  jsonAnswer: string;
  /** What transcriptions say. */
  transcript: string;
  video: VideoScript;
  /** Every video job created, by id, as a retrieve would answer now (a deleted one stays here). */
  videos: Map<string, OpenAI.Videos.Video>;
  /** The ids of the video jobs deleted. */
  deletedVideos: Set<string>;
  /** The id of the video job created with `prompt`. */
  videoFor(prompt: string): string | undefined;
  /** The requests to `path` (without the /v1 prefix), with `method` when given. */
  to(path: string | RegExp, method?: string): RecordedRequest[];
  close(): Promise<void>;
}

const lastUserText = (body: RecordedRequest['body']): string => {
  const user = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!user) return '';
  if (typeof user.content === 'string') return user.content;
  const parts = user.content as { type: string; text?: string }[];
  return parts.find((p) => p.type === 'text')?.text ?? '';
};

async function parsed(req: http.IncomingMessage, raw: Buffer) {
  const type = req.headers['content-type'] ?? '';
  const files: Record<string, RecordedFile> = {};
  if (type.startsWith('multipart/form-data')) {
    const body: Record<string, unknown> = {};
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    for (const [name, value] of form) {
      if (typeof value === 'string') body[name] = value;
      else files[name] = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
    return { body, files };
  }
  return { body: JSON.parse(raw.toString('utf8') || '{}') as RecordedRequest['body'], files };
}

/**
 * A loopback server speaking OpenAI's protocol as the SDK drives it: chat
 * completions (streamed as server-sent `chat.completion.chunk`s when asked,
 * word by word, ending with `data: [DONE]`), images generations and edits, speech,
 * transcriptions, video jobs (create, retrieve, content, delete) and models.
 * Real-shaped bodies, errors and media; every request recorded; outcomes
 * scripted. An `ok` chat answer is `echo: <the last user message's text>`.
 */
export async function startOpenAIDouble(): Promise<OpenAIDouble> {
  let outcome: DoubleOutcome = 'ok';
  let nextVideo = 0;
  const polls = new Map<string, { seen: number; script: VideoScript }>();
  let held: Promise<void> = Promise.resolve();
  const double: OpenAIDouble = {
    baseURL: '',
    requests: [],
    respond(next) {
      outcome = next;
    },
    chatLatencyMs: 0,
    chatsInFlight: 0,
    streams: true,
    chunkGapMs: 5,
    chatsCut: 0,
    holdChats() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return release;
    },
    usage: { prompt_tokens: 12_345, completion_tokens: 6_789 },
    imageUsage: { input_tokens: 50, output_tokens: 4160 },
    jsonAnswer: '{"title":"Cats","score":7}',
    transcript: 'Hello from the double.',
    video: { polls: 2, end: 'completed' },
    videos: new Map(),
    deletedVideos: new Set(),
    videoFor: (prompt) => [...double.videos.values()].find((v) => v.prompt === prompt)?.id,
    to: (path, method) =>
      double.requests.filter(
        (r) =>
          (typeof path === 'string' ? r.path === `/v1${path}` : path.test(r.path)) &&
          (method === undefined || r.method === method),
      ),
    close: () => server.close(),
  };

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) {
    const { body, files } = await parsed(req, raw);
    const method = req.method ?? 'GET';
    const url = (req.url ?? '').split('?')[0]!;
    double.requests.push({ method, path: url, authorization: req.headers.authorization, body, files });
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const bytes = (contentType: string, data: Buffer | string) => {
      res.writeHead(200, { 'content-type': contentType });
      res.end(data);
    };
    const error = (status: number, message: string, type: string, code: string | null, headers = {}) =>
      send(status, { error: { message, type, param: null, code } }, headers);
    const unknown = () => error(404, `Invalid URL (${method} ${url})`, 'invalid_request_error', null);

    // A video job's polls, download and deletion follow its script, not the outcome of the moment.
    const job = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(url);
    if (job) {
      const id = job[1]!;
      const current = double.videos.get(id);
      if (!current || double.deletedVideos.has(id)) {
        return error(404, `Video '${id}' not found.`, 'invalid_request_error', 'not_found');
      }
      if (method === 'DELETE' && !job[2]) {
        double.deletedVideos.add(id);
        return send(200, videoDeleted(id));
      }
      if (method !== 'GET') return unknown();
      if (job[2]) {
        if (current.status !== 'completed') {
          return error(409, 'Video is not ready yet.', 'invalid_request_error', 'video_not_ready');
        }
        return bytes('video/mp4', (await mediaBytes()).mp4);
      }
      const poll = polls.get(id)!;
      poll.seen++;
      let next: OpenAI.Videos.Video = { ...current, status: 'in_progress', progress: Math.min(99, poll.seen * 10) };
      if (poll.seen > poll.script.polls) {
        const at = Math.floor(Date.now() / 1000);
        next =
          poll.script.end === 'completed'
            ? { ...current, status: 'completed', progress: 100, completed_at: at }
            : {
                ...current,
                status: 'failed',
                error:
                  poll.script.end === 'moderated'
                    ? { code: 'moderation_blocked', message: 'The request was blocked by our moderation system.' }
                    : { code: 'internal_error', message: 'Video generation failed.' },
              };
      }
      double.videos.set(id, next);
      return send(200, next);
    }

    const bearer = req.headers.authorization?.replace(/^Bearer /, '');
    if (double.acceptedKeys && !double.acceptedKeys.has(bearer ?? '')) {
      return error(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    }
    switch (outcome) {
      case 'unauthorized':
        return error(401, 'Incorrect API key provided: sk-te*****cret.', 'invalid_request_error', 'invalid_api_key');
      case 'content_policy':
        return url.startsWith('/v1/images') || url.startsWith('/v1/videos')
          ? error(
              400,
              'Your request was rejected by the safety system.',
              'image_generation_user_error',
              'moderation_blocked',
            )
          : error(
              400,
              'Your request was rejected as a result of our safety system.',
              'invalid_request_error',
              'content_policy_violation',
            );
      case 'bad_request':
        return error(400, "Invalid value for 'temperature'.", 'invalid_request_error', 'invalid_value');
      case 'server_error':
        return error(500, 'The server had an error while processing your request.', 'server_error', null);
      case 'rate_limited_then_ok':
        outcome = 'ok';
        return error(429, 'Rate limit reached.', 'requests', 'rate_limit_exceeded', { 'retry-after': '1' });
      case 'stall':
        return; // never answers
      default:
    }

    const route = `${method} ${url}`;
    const model = typeof body.model === 'string' ? body.model : '';
    const usage = /^(gpt-image|chatgpt-image)/.test(model) ? double.imageUsage : undefined;
    switch (route) {
      case 'POST /v1/chat/completions':
        if (double.chatLatencyMs > 0) {
          double.chatsInFlight++;
          await delay(double.chatLatencyMs);
          double.chatsInFlight--;
        }
        await held;
        return chat(res, body, double.requests.length, model);
      case 'GET /v1/models':
        return send(200, modelList());
      case 'POST /v1/images/generations':
      case 'POST /v1/images/edits': {
        if (route.endsWith('edits') && !files.image && !files['image[]']) {
          return error(
            400,
            "Missing required parameter: 'image'.",
            'invalid_request_error',
            'missing_required_parameter',
          );
        }
        const n = Number(body.n ?? 1);
        const size = typeof body.size === 'string' ? body.size : undefined;
        return send(200, await imagesResponse(n, size, usage));
      }
      case 'POST /v1/audio/speech':
        return bytes('audio/mpeg', (await mediaBytes()).mp3);
      case 'POST /v1/audio/transcriptions': {
        const format = typeof body.response_format === 'string' ? body.response_format : 'json';
        const { contentType, body: text } = transcription(format, double.transcript, 2);
        return bytes(contentType, text);
      }
      case 'POST /v1/videos': {
        const id = `video_${(++nextVideo).toString().padStart(6, '0')}`;
        const created = videoBody(id, body as Record<string, string>);
        double.videos.set(id, created);
        polls.set(id, { seen: 0, script: { ...double.video } });
        return send(200, created);
      }
      default:
        return unknown();
    }
  }

  async function chat(res: http.ServerResponse, body: RecordedRequest['body'], n: number, model: string) {
    const content = outcome === 'json' ? double.jsonAnswer : `echo: ${lastUserText(body)}`;
    if (body.stream !== true || !double.streams) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(chatCompletion(n, model, content, double.usage)));
    }
    const options = body.stream_options as { include_usage?: boolean } | undefined;
    const pieces = content.match(/\S+\s*|\s+/g) ?? [];
    const chunks = chatCompletionChunks(n, model, pieces, options?.include_usage ? double.usage : undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.once('close', () => {
      if (!res.writableFinished) double.chatsCut++;
    });
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0 && double.chunkGapMs > 0) await delay(double.chunkGapMs);
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  const server = await startLoopbackServer((req, res, body) =>
    answer(req, res, body).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err), type: 'server_error', param: null, code: null } }));
    }),
  );
  double.baseURL = `${server.origin}/v1`;
  return double;
}
