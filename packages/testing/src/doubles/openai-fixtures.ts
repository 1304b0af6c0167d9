import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type OpenAI from 'openai';
import sharp from 'sharp';

// What the OpenAI double answers, typed with the SDK's own types so that the
// bodies cannot drift from the protocol, and the real media bytes it returns:
// PNGs drawn by sharp, MP3 and MP4 made by ffmpeg (once per process).

const run = promisify(execFile);

export function chatCompletion(
  n: number,
  model: string,
  content: string,
  usage: { prompt_tokens: number; completion_tokens: number },
): OpenAI.Chat.Completions.ChatCompletion {
  return {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/**
 * A chat answer as `stream: true` sends it: the role first, `content` in
 * `pieces`, the finish, then (with `stream_options.include_usage`) a last
 * chunk of no choices carrying the usage, every other chunk `usage: null`.
 */
export function chatCompletionChunks(
  n: number,
  model: string,
  pieces: string[],
  usage: { prompt_tokens: number; completion_tokens: number } | undefined,
): OpenAI.Chat.Completions.ChatCompletionChunk[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (
    choices: OpenAI.Chat.Completions.ChatCompletionChunk['choices'],
    last?: OpenAI.Completions.CompletionUsage,
  ): OpenAI.Chat.Completions.ChatCompletionChunk => ({
    id: `chatcmpl-${n}`,
    object: 'chat.completion.chunk',
    created,
    model,
    choices,
    ...(usage ? { usage: last ?? null } : {}),
  });
  const delta = (d: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta, finish: 'stop' | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  return [
    delta({ role: 'assistant', content: '', refusal: null }),
    ...pieces.map((content) => delta({ content })),
    delta({}, 'stop'),
    ...(usage ? [chunk([], { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens })] : []),
  ];
}

export function modelList(): { object: 'list'; data: OpenAI.Models.Model[] } {
  const model: OpenAI.Models.Model = { id: 'gpt-4o-mini', object: 'model', created: 1_700_000_000, owned_by: 'openai' };
  return { object: 'list', data: [model] };
}

const COLOURS = ['#d62828', '#2a9d8f', '#264653', '#e9c46a'];

/** A PNG of `size` (`WxH`; 1024×1024 for `auto` or none) in the `index`th colour. */
export function png(size: string | undefined, index: number): Promise<Buffer> {
  const [width, height] = /^\d+x\d+$/.test(size ?? '') ? size!.split('x').map(Number) : [1024, 1024];
  return sharp({
    create: { width: width!, height: height!, channels: 3, background: COLOURS[index % COLOURS.length]! },
  })
    .png()
    .toBuffer();
}

/** The images answer of a request for `n` images of `size`, with gpt-image's token usage when `usage` is given. */
export async function imagesResponse(
  n: number,
  size: string | undefined,
  usage: { input_tokens: number; output_tokens: number } | undefined,
): Promise<OpenAI.Images.ImagesResponse> {
  const data = await Promise.all(
    Array.from({ length: n }, async (_, i) => ({ b64_json: (await png(size, i)).toString('base64') })),
  );
  return {
    created: Math.floor(Date.now() / 1000),
    data,
    ...(usage
      ? {
          usage: {
            ...usage,
            total_tokens: usage.input_tokens + usage.output_tokens,
            input_tokens_details: { image_tokens: 0, text_tokens: usage.input_tokens },
          },
        }
      : {}),
  };
}

/** A transcript as each response_format carries it: JSON bodies typed, subtitles as the API writes them. */
export function transcription(format: string, text: string, seconds: number): { contentType: string; body: string } {
  const end = `00:00:${String(Math.min(59, Math.ceil(seconds))).padStart(2, '0')}`;
  switch (format) {
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', body: `${text}\n` };
    case 'srt':
      return { contentType: 'text/plain; charset=utf-8', body: `1\n00:00:00,000 --> ${end},000\n${text}\n\n` };
    case 'vtt':
      return { contentType: 'text/plain; charset=utf-8', body: `WEBVTT\n\n00:00:00.000 --> ${end}.000\n${text}\n\n` };
    default: {
      const json: OpenAI.Audio.Transcription = { text, usage: { type: 'duration', seconds: Math.ceil(seconds) } };
      return { contentType: 'application/json', body: JSON.stringify(json) };
    }
  }
}

export function video(
  id: string,
  fields: { model?: string; prompt?: string; seconds?: string; size?: string },
): OpenAI.Videos.Video {
  return {
    id,
    object: 'video',
    created_at: Math.floor(Date.now() / 1000),
    completed_at: null,
    expires_at: null,
    error: null,
    model: fields.model ?? 'sora-2',
    progress: 0,
    prompt: fields.prompt ?? null,
    remixed_from_video_id: null,
    seconds: fields.seconds ?? '4',
    size: (fields.size ?? '720x1280') as OpenAI.Videos.VideoSize,
    status: 'queued',
  };
}

export function videoDeleted(id: string): OpenAI.Videos.VideoDeleteResponse {
  return { id, deleted: true, object: 'video.deleted' };
}

let media: Promise<{ mp3: Buffer; mp4: Buffer }> | undefined;

/** One second of a tone as MP3, and of ffmpeg's test pattern as H.264 MP4: made once, kept for the process. */
export function mediaBytes(): Promise<{ mp3: Buffer; mp4: Buffer }> {
  media ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'openai-double-'));
    try {
      const ffmpeg = (args: string[]) => run('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args]);
      const mp3 = path.join(dir, 'speech.mp3');
      const mp4 = path.join(dir, 'video.mp4');
      await Promise.all([
        ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'libmp3lame', '-q:a', '5', mp3]),
        ffmpeg([
          '-f',
          'lavfi',
          '-i',
          'testsrc2=size=320x240:rate=25:duration=1',
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-pix_fmt',
          'yuv420p',
          '-movflags',
          '+faststart',
          mp4,
        ]),
      ]);
      return { mp3: await fs.readFile(mp3), mp4: await fs.readFile(mp4) };
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  })();
  return media;
}
