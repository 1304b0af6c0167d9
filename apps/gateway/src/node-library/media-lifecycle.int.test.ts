import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { upload } from '../testing/asset-fixtures';
import { postAgent } from '../testing/catalog-fixtures';
import { pollRun, startRunStack, type RunStack } from '../testing/test-runs';
import { waitFor } from '@weft/testing';

// A media node's temporary files and its ffmpeg do not outlive it: whether
// it completes, fails, is cancelled or times out, its working directory is
// removed and no ffmpeg it started is left running.

let stack: RunStack;
let apiKey: string;
let workRoot: string;
let video: string;

/** ffmpeg processes whose command line names a path under the worker's work root. */
function ffmpegUnderWorkRoot(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (cmdline.includes('ffmpeg') && cmdline.includes(workRoot)) pids.push(Number(entry));
  }
  return pids;
}

/** Files under the work root, at any depth. */
function filesUnderWorkRoot(): string[] {
  return fs.readdirSync(workRoot, { recursive: true }).map(String);
}

beforeAll(async () => {
  workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-work-root-'));
  stack = await startRunStack({}, { nodeWorkRoot: workRoot });
  ({ apiKey } = await stack.gw.createOrg('Lifecycle', 100));
  // Long enough that a 4× Lanczos upscale takes seconds: there is time to stop it mid-way.
  const file = path.join(workRoot, '..', `lifecycle-${process.pid}.mp4`);
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=640x360:rate=25:duration=20',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    file,
  ]);
  const res = await upload(stack.gw.app, apiKey, fs.readFileSync(file), { partName: 'clip.mp4' });
  fs.rmSync(file);
  expect(res.status).toBe(200);
  video = res.body.id;
}, 60_000);
afterAll(async () => {
  await stack.close();
  fs.rmSync(workRoot, { recursive: true, force: true });
});

async function startUpscale(timeoutMs?: number) {
  const agent = await postAgent(stack.gw.app, apiKey, {
    flow: {
      nodes: [
        { id: 'video', type: 'video_input' },
        {
          id: 'big',
          type: 'upscale_video',
          params: { factor: 4, ...(timeoutMs ? { timeout_ms: timeoutMs } : {}) },
          inputs: { video: 'video' },
        },
      ],
      outputs: [{ id: 'big', type: 'videos', description: '' }],
    },
  });
  const res = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'video', value: { asset_ids: [video] } }] });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Waits until ffmpeg is writing its output in a node's working directory. */
const whileEncoding = () =>
  waitFor(
    'ffmpeg to be encoding under the work root',
    async () =>
      ffmpegUnderWorkRoot().length > 0 && filesUnderWorkRoot().some((f) => f.includes('/')) ? true : undefined,
    { timeoutMs: 30_000, intervalMs: 20 },
  );

/** Waits until nothing of the node is left: no file, no ffmpeg. */
const nothingLeft = () =>
  waitFor(
    'the working directory removed and ffmpeg gone',
    async () => (filesUnderWorkRoot().length === 0 && ffmpegUnderWorkRoot().length === 0 ? true : undefined),
    { timeoutMs: 10_000, intervalMs: 20 },
  );

test('cancelled while ffmpeg encodes: ffmpeg is killed and the files removed', async () => {
  const runId = await startUpscale();
  await whileEncoding();
  await request(stack.gw.app).delete(`/runs/${runId}`).set('X-Api-Key', apiKey).expect(204);
  await nothingLeft();
  expect((await pollRun(stack.gw, apiKey, `/runs/${runId}`)).status).toBe('canceled');
});

test('past its timeout: the run fails with timeout, ffmpeg is killed and the files removed', async () => {
  const runId = await startUpscale(1_500);
  const done = await pollRun(stack.gw, apiKey, `/runs/${runId}`, undefined, 30_000);
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'timeout' });
  await nothingLeft();
});

test('completed or failed: nothing is left either', async () => {
  const agent = await postAgent(stack.gw.app, apiKey, {
    flow: {
      nodes: [
        { id: 'video', type: 'video_input' },
        { id: 'still', type: 'extract_video_frame', params: { at: 'last' }, inputs: { video: 'video' } },
        { id: 'late', type: 'extract_video_frame', params: { at: 600 }, inputs: { video: 'video' } },
      ],
      outputs: [{ id: 'still', type: 'images', description: '' }],
    },
  });
  const run = async (flowAgent: string) => {
    const res = await request(stack.gw.app)
      .post('/runs')
      .set('X-Api-Key', apiKey)
      .send({ agent_id: flowAgent, inputs: [{ id: 'video', value: { asset_ids: [video] } }] });
    return pollRun(stack.gw, apiKey, `/runs/${res.body.id}`, undefined, 30_000);
  };
  const done = await run(agent.id);
  // The frame 600 s in is past the end: that node fails the run, after the other may have completed.
  expect(done).toMatchObject({ status: 'failed', failure_reason: 'invalid_input' });
  await nothingLeft();
});
