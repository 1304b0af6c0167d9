import type { InQueueQueueStatus, OutputType, QueueStatus } from '@fal-ai/client';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { startLoopbackServer } from './loopback-server';

// A loopback server speaking fal's queue and storage protocols as
// @fal-ai/client uses them (the client's requests reach it through a base
// URL its request middleware substitutes for queue.fal.run and rest.fal.ai):
//
//   POST /{app...}                              submit → {request_id, status_url, response_url, cancel_url}
//   GET  /{owner}/{alias}/requests/{id}/status  IN_QUEUE / IN_PROGRESS (202), COMPLETED (200)
//   GET  /{owner}/{alias}/requests/{id}         the app's output (or its error)
//   PUT  /{owner}/{alias}/requests/{id}/cancel  202 CANCELLATION_REQUESTED, 400 ALREADY_COMPLETED
//   POST /storage/upload/initiate               {upload_url, file_url}; then PUT upload_url with the bytes
//
// Every request is recorded; outcomes are scripted; the files of the answers
// are real (PNG by sharp, MP4 and MP3 by ffmpeg) and served here.

/** How the double answers the next submissions. */
export type FalOutcome =
  | 'ok'
  | 'unauthorized'
  | 'invalid_input'
  | 'content_policy'
  | 'failed'
  | 'rate_limited_then_ok'
  | 'server_error_then_ok'
  | 'server_error'
  | 'stall';

export interface FalRecordedRequest {
  method: string;
  /** Path and query. */
  path: string;
  authorization: string | undefined;
  /** The JSON body, when there is one. */
  body: Record<string, unknown> | undefined;
  /** When it arrived (Date.now()). */
  at: number;
}

export interface FalSubmission {
  app: string;
  requestId: string;
  input: Record<string, unknown>;
}

export interface FalUpload {
  fileName: string;
  contentType: string;
  bytes: Buffer;
  /** The URL the storage API gave for it. */
  url: string;
}

export interface FalDouble {
  /** FAL_BASE_URL. */
  baseURL: string;
  requests: FalRecordedRequest[];
  /** The submissions it queued, in order. */
  submissions: FalSubmission[];
  /** The request ids it was asked to cancel. */
  cancels: string[];
  uploads: FalUpload[];
  /** From now on, answer submissions this way (`*_then_ok`: once, then ok). */
  respond(outcome: FalOutcome): void;
  /** Status polls a request answers IN_QUEUE / IN_PROGRESS before COMPLETED (default 1). */
  pollsBeforeDone: number;
  /** Lets stalled requests complete. */
  release(): void;
  close(): Promise<void>;
}

/** The size of the images it makes. */
export const FAL_IMAGE = { width: 64, height: 48 };

/** What an app answers, by the kind of file it makes (as fal's apps name their fields). */
function kindOf(app: string): 'images' | 'image' | 'video' | 'audio' {
  if (/video|kling/.test(app)) return 'video';
  if (/music|audio/.test(app)) return 'audio';
  if (/birefnet|eraser|upscaler|background/.test(app)) return 'image';
  return 'images';
}

interface MediaFiles {
  png: Buffer;
  mp4: Buffer;
  mp3: Buffer;
}

async function makeMedia(): Promise<MediaFiles> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fal-double-'));
  const ffmpeg = (out: string, args: string[]) => {
    execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args, out]);
    return fs.readFileSync(out);
  };
  try {
    const png = await sharp({ create: { ...FAL_IMAGE, channels: 3, background: '#3366ff' } })
      .png()
      .toBuffer();
    const mp4 = ffmpeg(path.join(dir, 'clip.mp4'), [
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=160x120:rate=25:duration=2',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
    ]);
    const mp3 = ffmpeg(path.join(dir, 'sound.mp3'), ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3']);
    return { png, mp4, mp3 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The output of `app` for `input`, its files at `files` (fixtures typed by the client's own endpoint types). */
function outputOf(app: string, input: Record<string, unknown>, files: string): unknown {
  const image = { url: `${files}/image.png`, ...FAL_IMAGE, content_type: 'image/png' };
  switch (kindOf(app)) {
    case 'video': {
      const out: OutputType<'fal-ai/kling-video/v2.5-turbo/pro/text-to-video'> = {
        video: { url: `${files}/video.mp4`, content_type: 'video/mp4', file_name: 'video.mp4' },
      };
      return out;
    }
    case 'audio': {
      const out: OutputType<'fal-ai/elevenlabs/music'> = {
        audio: { url: `${files}/audio.mp3`, content_type: 'audio/mpeg', file_name: 'audio.mp3' },
      };
      return out;
    }
    case 'image': {
      const out: OutputType<'fal-ai/birefnet'> = { image };
      return out;
    }
    default: {
      const count = typeof input.num_images === 'number' ? input.num_images : 1;
      const out: OutputType<'fal-ai/flux/dev'> = {
        images: Array.from({ length: count }, () => image),
        has_nsfw_concepts: Array.from({ length: count }, () => false),
        prompt: String(input.prompt ?? ''),
        seed: 42,
        timings: { inference: 0.1 },
      };
      return out;
    }
  }
}

interface QueuedRequest extends FalSubmission {
  outcome: FalOutcome;
  polls: number;
  done: boolean;
  cancelled: boolean;
}

/** Starts the double; requests must carry `Authorization: Key <key>`. */
export async function startFalDouble(key: string): Promise<FalDouble> {
  const media = await makeMedia();
  let outcome: FalOutcome = 'ok';
  let released = false;
  /** Whether the one refusal of a `*_then_ok` outcome was given. */
  let refusedOnce = false;
  const queued = new Map<string, QueuedRequest>();
  const stored = new Map<string, { contentType: string; bytes?: Buffer; fileName: string }>();
  const double: FalDouble = {
    baseURL: '',
    requests: [],
    submissions: [],
    cancels: [],
    uploads: [],
    pollsBeforeDone: 1,
    respond(next) {
      outcome = next;
      refusedOnce = false;
      released = false;
    },
    release() {
      released = true;
    },
    close: () => server.close(),
  };

  const server = await startLoopbackServer((req, res, raw) => {
    const url = new URL(req.url ?? '/', double.baseURL);
    const isJson = (req.headers['content-type'] ?? '').includes('application/json');
    const body = isJson && raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : undefined;
    double.requests.push({
      method: req.method ?? '',
      path: url.pathname + url.search,
      authorization: req.headers.authorization,
      body,
      at: Date.now(),
    });
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const serve = (bytes: Buffer, contentType: string) => {
      res.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length) });
      res.end(bytes);
    };
    const parts = url.pathname.split('/').filter(Boolean);

    // Files: results it made, and what was uploaded (fal's CDN needs no key).
    if (req.method === 'GET' && parts[0] === 'results') {
      const file = parts[1];
      if (file === 'image.png') return serve(media.png, 'image/png');
      if (file === 'video.mp4') return serve(media.mp4, 'video/mp4');
      if (file === 'audio.mp3') return serve(media.mp3, 'audio/mpeg');
      return send(404, { detail: 'Not found' });
    }
    if (parts[0] === 'files' || parts[0] === 'storage-uploads') {
      const upload = stored.get(parts[1] ?? '');
      if (!upload) return send(404, { detail: 'Not found' });
      if (req.method === 'PUT' && parts[0] === 'storage-uploads') {
        upload.bytes = raw;
        double.uploads.push({
          fileName: upload.fileName,
          contentType: String(req.headers['content-type'] ?? upload.contentType),
          bytes: raw,
          url: `${double.baseURL}/files/${parts[1]}`,
        });
        res.writeHead(200);
        return res.end();
      }
      if (req.method === 'GET' && upload.bytes) return serve(upload.bytes, upload.contentType);
      return send(404, { detail: 'Not found' });
    }

    if (req.headers.authorization !== `Key ${key}` || (outcome === 'unauthorized' && parts[0] !== 'storage')) {
      return send(401, { detail: 'Invalid API key' });
    }

    if (req.method === 'POST' && url.pathname === '/storage/upload/initiate') {
      const token = randomUUID();
      stored.set(token, {
        contentType: String(body?.content_type ?? 'application/octet-stream'),
        fileName: String(body?.file_name ?? token),
      });
      return send(200, {
        upload_url: `${double.baseURL}/storage-uploads/${token}`,
        file_url: `${double.baseURL}/files/${token}`,
      });
    }

    // The queue: /{owner}/{alias}/requests/{id}[/status|/cancel].
    if (parts[2] === 'requests' && parts[3]) {
      const request = queued.get(parts[3]);
      const app = `${parts[0]}/${parts[1]}`;
      if (!request || !request.app.startsWith(app)) return send(404, { detail: `Request ${parts[3]} not found` });
      const urls = {
        request_id: request.requestId,
        response_url: `${double.baseURL}/${app}/requests/${request.requestId}`,
        status_url: `${double.baseURL}/${app}/requests/${request.requestId}/status`,
        cancel_url: `${double.baseURL}/${app}/requests/${request.requestId}/cancel`,
      };
      if (req.method === 'PUT' && parts[4] === 'cancel') {
        double.cancels.push(request.requestId);
        if (request.done) return send(400, { status: 'ALREADY_COMPLETED' });
        request.cancelled = true;
        return send(202, { status: 'CANCELLATION_REQUESTED' });
      }
      if (req.method === 'GET' && parts[4] === 'status') {
        const stalled = request.outcome === 'stall' && !released;
        if (!request.cancelled && (stalled || request.polls < double.pollsBeforeDone)) {
          request.polls += 1;
          const status: QueueStatus =
            request.polls === 1 && !stalled
              ? { ...urls, status: 'IN_QUEUE', queue_position: 0 }
              : { ...urls, status: 'IN_PROGRESS', logs: [] };
          return send(202, status);
        }
        request.done = true;
        const failed = request.cancelled || request.outcome === 'failed' || request.outcome === 'content_policy';
        const status: QueueStatus = { ...urls, status: 'COMPLETED', logs: [], metrics: { inference_time: 0.5 } };
        return send(200, failed ? { ...status, error: 'Request failed', error_type: 'app_error' } : status);
      }
      if (req.method === 'GET' && parts.length === 4) {
        const headers = { 'x-fal-request-id': request.requestId };
        if (!request.done) return send(400, { detail: 'Request is still in progress' }, headers);
        if (request.cancelled) return send(400, { detail: 'Request was cancelled' }, headers);
        if (request.outcome === 'failed') {
          return send(500, { detail: 'The app crashed while running the request' }, headers);
        }
        if (request.outcome === 'content_policy') {
          const detail = [
            {
              loc: ['body', 'prompt'],
              msg: 'The content could not be processed because it contained material flagged by a content checker.',
              type: 'content_policy_violation',
            },
          ];
          return send(422, { detail }, headers);
        }
        return send(200, outputOf(request.app, request.input, `${double.baseURL}/results`), headers);
      }
      return send(405, { detail: 'Method not allowed' });
    }

    if (req.method === 'POST' && parts.length >= 2) {
      const app = parts.join('/');
      if (outcome === 'invalid_input') {
        return send(422, { detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'missing' }] });
      }
      if (outcome === 'server_error' || (outcome === 'server_error_then_ok' && !refusedOnce)) {
        refusedOnce = true;
        return send(503, { detail: 'Service temporarily unavailable' });
      }
      if (outcome === 'rate_limited_then_ok' && !refusedOnce) {
        refusedOnce = true;
        return send(429, { detail: 'Too many requests' }, { 'retry-after': '1' });
      }
      const requestId = randomUUID();
      const submission = { app, requestId, input: body ?? {} };
      queued.set(requestId, { ...submission, outcome, polls: 0, done: false, cancelled: false });
      double.submissions.push(submission);
      const owner = `${parts[0]}/${parts[1]}`;
      const answer: InQueueQueueStatus = {
        status: 'IN_QUEUE',
        queue_position: 0,
        request_id: requestId,
        response_url: `${double.baseURL}/${owner}/requests/${requestId}`,
        status_url: `${double.baseURL}/${owner}/requests/${requestId}/status`,
        cancel_url: `${double.baseURL}/${owner}/requests/${requestId}/cancel`,
      };
      return send(200, answer);
    }
    return send(404, { detail: `Unknown route: ${req.method} ${url.pathname}` });
  });
  double.baseURL = server.origin;
  return double;
}
