import type * as wire from '@elevenlabs/elevenlabs-js/serialization';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startLoopbackServer } from './loopback-server';

// A loopback server speaking the ElevenLabs REST API as the official SDK
// calls it: the routes of the capabilities Weft uses, their snake_case wire
// bodies (typed with the SDK's own serialization types, so they cannot drift
// from what the SDK parses), its error shapes, and real audio and video bytes
// made by ffmpeg. Every request is recorded; outcomes are scripted.

/** How the double answers from now on. */
export type ElevenLabsOutcome =
  | 'ok'
  /** 401 invalid_api_key on every request. */
  | 'unauthorized'
  /** 401 quota_exceeded: ElevenLabs says so with a 401 too. */
  | 'quota_exceeded'
  /** 422: FastAPI's validation error of a field. */
  | 'invalid'
  /** 400 bad_prompt: the music API refuses a prompt naming copyrighted material. */
  | 'bad_prompt'
  /** 500 every time. */
  | 'server_error'
  /** One 429 with Retry-After: 1, then ok. */
  | 'rate_limited_then_ok'
  /** Never answers. */
  | 'stall';

export interface ElevenLabsRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  /** The xi-api-key header. */
  apiKey: string | undefined;
  /** A JSON body. */
  json?: Record<string, unknown>;
  /** Multipart text fields (repeated fields as lists). */
  fields?: Record<string, string | string[]>;
  /** Multipart files. */
  files?: { field: string; filename: string; contentType: string; bytes: Buffer }[];
}

export interface DubbingScript {
  /** How many GET /v1/dubbing/{id} answer `dubbing` before the end. */
  polls: number;
  /** How the job ends; `never` keeps it dubbing. */
  ends: 'dubbed' | 'failed' | 'never';
}

export interface ElevenLabsDouble {
  /** ELEVENLABS_BASE_URL. */
  baseURL: string;
  requests: ElevenLabsRequest[];
  respond(outcome: ElevenLabsOutcome): void;
  /** How dubbing jobs created from now on progress. */
  dubbing: DubbingScript;
  /** Ends every dubbing job still in progress as dubbed, at its next poll. */
  finishDubbing(): void;
  /** Requests to `method path-prefix`. */
  to(method: string, pathPrefix: string): ElevenLabsRequest[];
  /** The words a transcription answers, with their times in seconds. */
  words: { text: string; start: number; end: number }[];
  close(): Promise<void>;
}

const SPEECH_SECONDS = 1;

/** Runs ffmpeg writing `ext` to a temporary file; its bytes. */
function ffmpegBytes(ext: string, args: string[]): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'elevenlabs-double-'));
  const out = path.join(dir, `out.${ext}`);
  try {
    execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args, out]);
    return fs.readFileSync(out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const toneMp3 = (seconds: number, hz: number) =>
  ffmpegBytes('mp3', ['-f', 'lavfi', '-i', `sine=frequency=${hz}:duration=${seconds}`, '-c:a', 'libmp3lame']);

const dubbedMp4 = (seconds: number) =>
  ffmpegBytes('mp4', [
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=160x120:rate=25:duration=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=660:duration=${seconds}`,
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
  ]);

interface DubbingJob {
  id: string;
  name: string;
  target: string;
  sourceType: string;
  polls: number;
  script: DubbingScript;
  deleted: boolean;
}

/** Reads a multipart body with the platform's own parser. */
async function multipart(body: Buffer, contentType: string) {
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  const fields: Record<string, string | string[]> = {};
  const files: NonNullable<ElevenLabsRequest['files']> = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      const prior = fields[field];
      fields[field] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
    } else {
      files.push({
        field,
        filename: value.name,
        contentType: value.type,
        bytes: Buffer.from(await value.arrayBuffer()),
      });
    }
  }
  return { fields, files };
}

function user(): wire.User.Raw {
  return {
    user_id: 'user_double',
    workspace_id: 'ws_double',
    subscription: {
      tier: 'creator',
      character_count: 0,
      character_limit: 100_000,
      max_credit_limit_extension: 0,
      can_extend_character_limit: false,
      allowed_to_extend_character_limit: false,
      voice_slots_used: 0,
      professional_voice_slots_used: 0,
      professional_voice_slots_used_in_workspace: 0,
      voice_limit: 30,
      voice_add_edit_counter: 0,
      professional_voice_limit: 1,
      can_extend_voice_limit: false,
      can_use_instant_voice_cloning: true,
      can_use_professional_voice_cloning: true,
      current_overage: { amount: '0', currency: 'usd' },
      status: 'active',
    },
    is_new_user: false,
    can_use_delayed_payment_methods: false,
    is_onboarding_completed: true,
    is_onboarding_checklist_completed: true,
    created_at: 1_700_000_000,
    seat_type: 'workspace_admin',
  };
}

/** Starts the double on a loopback port. */
export async function startElevenLabsDouble(): Promise<ElevenLabsDouble> {
  let outcome: ElevenLabsOutcome = 'ok';
  const jobs = new Map<string, DubbingJob>();
  const speech = toneMp3(SPEECH_SECONDS, 440);
  const double: ElevenLabsDouble = {
    baseURL: '',
    requests: [],
    respond(next) {
      outcome = next;
    },
    dubbing: { polls: 2, ends: 'dubbed' },
    finishDubbing() {
      for (const job of jobs.values()) if (job.script.ends === 'never') job.script = { polls: 0, ends: 'dubbed' };
    },
    to: (method, prefix) => double.requests.filter((r) => r.method === method && r.path.startsWith(prefix)),
    words: [
      { text: 'Hello', start: 0.1, end: 0.5 },
      { text: 'there,', start: 0.6, end: 1.0 },
      { text: 'general', start: 1.1, end: 1.6 },
      { text: 'Kenobi.', start: 1.7, end: 2.4 },
    ],
    close: () => server.close(),
  };

  const server = await startLoopbackServer((req, res, body) =>
    handle(req, res, body).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: { status: 'double_error', message: String(err) } }));
    }),
  );

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
    const url = new URL(req.url ?? '/', 'http://double');
    const recorded: ElevenLabsRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      apiKey: req.headers['xi-api-key'] as string | undefined,
    };
    const type = req.headers['content-type'] ?? '';
    if (type.startsWith('application/json') && body.length > 0) {
      recorded.json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } else if (type.startsWith('multipart/form-data')) {
      Object.assign(recorded, await multipart(body, type));
    }
    double.requests.push(recorded);

    const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const error = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
      json(status, { detail: { status: code, message } }, headers);
    const bytes = (contentType: string, payload: Buffer) => {
      res.writeHead(200, { 'content-type': contentType, 'content-length': String(payload.length) });
      res.end(payload);
    };

    switch (outcome) {
      case 'unauthorized':
        // The real message quotes the key it was given: the adapter must never repeat it.
        return error(401, 'invalid_api_key', `Invalid API key: ${recorded.apiKey ?? ''}`);
      case 'quota_exceeded':
        return error(401, 'quota_exceeded', 'This request exceeds your quota of 10000. You have 3 credits remaining.');
      case 'invalid': {
        const invalid: wire.HttpValidationError.Raw = {
          detail: [{ loc: ['body', 'text'], msg: 'Field required', type: 'missing' }],
        };
        return json(422, invalid);
      }
      case 'bad_prompt':
        return error(400, 'bad_prompt', 'The prompt names a copyrighted work; try describing its style instead.');
      case 'server_error':
        return error(500, 'internal_error', 'An internal error occurred.');
      case 'rate_limited_then_ok':
        outcome = 'ok';
        return error(429, 'too_many_concurrent_requests', 'Too many concurrent requests.', { 'retry-after': '1' });
      case 'stall':
        return; // never answers
      case 'ok':
        break;
    }

    const { method } = recorded;
    const p = url.pathname;
    let m: RegExpExecArray | null;
    if (method === 'GET' && p === '/v1/user') return json(200, user());
    if (method === 'POST' && /^\/v1\/text-to-speech\/[^/]+$/.test(p)) return bytes('audio/mpeg', speech);
    if (method === 'POST' && p === '/v1/audio-isolation') return bytes('audio/mpeg', speech);
    if (method === 'POST' && p === '/v1/music') {
      const ms = Number(recorded.json?.music_length_ms ?? 3000);
      return bytes('audio/mpeg', toneMp3(ms / 1000, 330));
    }
    if (method === 'POST' && p === '/v1/voices/add') {
      const added: wire.AddVoiceIvcResponseModel.Raw = {
        voice_id: `voice_${double.requests.length}`,
        requires_verification: false,
      };
      return json(200, added);
    }
    if (method === 'POST' && p === '/v1/speech-to-text') {
      const words: wire.SpeechToTextWordResponseModel.Raw[] = double.words.flatMap((w, i) => [
        ...(i > 0 ? [{ text: ' ', start: w.start, end: w.start, type: 'spacing' as const, logprob: 0 }] : []),
        { text: w.text, start: w.start, end: w.end, type: 'word' as const, speaker_id: 'speaker_0', logprob: -0.1 },
      ]);
      const transcript: wire.SpeechToTextChunkResponseModel.Raw = {
        language_code: (recorded.fields?.language_code as string | undefined) ?? 'eng',
        language_probability: 0.98,
        text: double.words.map((w) => w.text).join(' '),
        words,
        transcription_id: `tr_${double.requests.length}`,
        audio_duration_secs: 2.5,
      };
      return json(200, transcript);
    }
    if (method === 'POST' && p === '/v1/dubbing') {
      const file = recorded.files?.find((f) => f.field === 'file');
      const target = recorded.fields?.target_lang;
      if (!file || typeof target !== 'string') return error(400, 'invalid_request', 'file and target_lang are needed');
      const id = `dub_${jobs.size + 1}_${Date.now().toString(36)}`;
      jobs.set(id, {
        id,
        name: String(recorded.fields?.name ?? file.filename),
        target,
        sourceType: file.contentType,
        polls: 0,
        script: { ...double.dubbing },
        deleted: false,
      });
      const created: wire.DoDubbingResponse.Raw = { dubbing_id: id, expected_duration_sec: 12 };
      return json(200, created);
    }
    if ((m = /^\/v1\/dubbing\/([^/]+)$/.exec(p))) {
      const job = jobs.get(m[1]!);
      if (!job || job.deleted) return error(404, 'dubbing_not_found', `Dubbing ${m[1]} not found`);
      if (method === 'DELETE') {
        job.deleted = true;
        const deleted: wire.DeleteDubbingResponseModel.Raw = { status: 'ok' };
        return json(200, deleted);
      }
      if (method === 'GET') {
        job.polls += 1;
        const { polls, ends } = job.script;
        const status = ends === 'never' || job.polls <= polls ? 'dubbing' : ends;
        const metadata: wire.DubbingMetadataResponse.Raw = {
          dubbing_id: job.id,
          name: job.name,
          status,
          source_language: 'en',
          target_languages: [job.target],
          created_at: new Date().toISOString(),
          media_metadata: { content_type: job.sourceType, duration: 2 },
          ...(status === 'failed' ? { error: 'No speech was found in the file.' } : {}),
        };
        return json(200, metadata);
      }
    }
    if (method === 'GET' && (m = /^\/v1\/dubbing\/([^/]+)\/audio\/([^/]+)$/.exec(p))) {
      const job = jobs.get(m[1]!);
      if (!job || job.deleted) return error(404, 'dubbing_not_found', `Dubbing ${m[1]} not found`);
      if (job.target !== m[2]) return error(404, 'language_not_found', `Language ${m[2]} not found in the dubbing`);
      if (job.script.ends !== 'dubbed' || job.polls <= job.script.polls) {
        return error(425, 'dubbing_not_ready', 'The dubbing is not finished yet.');
      }
      return job.sourceType.startsWith('video/') ? bytes('video/mp4', dubbedMp4(2)) : bytes('audio/mpeg', speech);
    }
    return error(404, 'not_found', `Unknown route ${method} ${p}`);
  }

  double.baseURL = `${server.origin}`;
  return double;
}
