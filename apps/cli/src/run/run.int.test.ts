import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pngBytes } from '@weft/gateway';
import { toArray, WeftClient, type AnyRun } from '@weft/sdk';
import { flows, startCliStack, type CliStack } from '../testing/cli-stack';

// `weft run` and `weft runs watch` against the real gateway and workers, run
// in-process without a terminal (the terminal's prompts: review-prompt.int.test.ts).

let cli: CliStack;
let tmp: string;

beforeAll(async () => {
  cli = await startCliStack();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-cli-run-'));
});
afterAll(async () => {
  await cli?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('runs an agent by name and prints its results; --json prints the final run', async () => {
  await cli.agent('Lines', flows.split());
  const plain = await cli.weft(['run', 'Lines', '--input', 'text=alpha\nbeta']);
  expect(plain.stderr).toMatch(/run \S+ of agent "Lines" started/);
  expect(plain.stderr).toMatch(/run \S+: completed/);
  expect(plain.stdout).toBe('first: alpha\n');
  expect(plain.code).toBe(0);

  const json = await cli.weft(['run', 'Lines', '--input', 'text=gamma', '--json']);
  expect(json.code).toBe(0);
  expect(json.stderr).toBe('');
  expect(json.json<{ run: AnyRun }>().run).toMatchObject({
    status: 'completed',
    results: [{ id: 'first', value: 'gamma' }],
  });
});

test('uploads @file inputs and downloads the outputs into --out', async () => {
  const agent = await cli.agent('Crop', flows.square());
  const photo = path.join(tmp, 'photo.png');
  fs.writeFileSync(photo, await pngBytes(60, 30));
  const out = path.join(tmp, 'out');
  const res = await cli.weft(['run', agent.id, '--input', `photo=@${photo}`, '--out', out, '--json']);
  expect(res.code).toBe(0);
  const { run, downloads } = res.json<{ run: AnyRun; downloads: { output: string; path: string }[] }>();
  expect(run.inputs).toEqual([{ id: 'photo', value: { asset_ids: [expect.any(String)] } }]);
  expect(downloads).toEqual([
    { output: 'square', asset_id: (run.results[0]!.value as string[])[0], path: expect.any(String) },
  ]);
  expect(path.dirname(downloads[0]!.path)).toBe(out);
  const written = fs.readFileSync(downloads[0]!.path);
  expect([written.readUInt32BE(16), written.readUInt32BE(20)]).toEqual([30, 30]);
});

test('@file is the text of a text input and an upload for a media input; @@ is a literal @', async () => {
  const agent = await cli.agent('Captioned photo', {
    nodes: [
      { id: 'subtitles', type: 'text_input', description: 'Subtitles', required: true },
      { id: 'note', type: 'text_input', description: 'A note', required: true },
      { id: 'photo', type: 'image_input', description: 'The photo', required: true },
    ],
    outputs: [
      { id: 'subtitles', type: 'text', description: 'The subtitles' },
      { id: 'note', type: 'text', description: 'The note' },
      { id: 'photo', type: 'images', description: 'The photo' },
    ],
  });
  const srt = '1\n00:00:00,000 --> 00:00:02,000\nCrème brûlée, 東京, ✓\n';
  const subs = path.join(tmp, 'subs.srt');
  fs.writeFileSync(subs, srt);
  const photo = path.join(tmp, 'captioned.png');
  const png = await pngBytes(20, 10);
  fs.writeFileSync(photo, png);

  const res = await cli.weft([
    'run',
    'Captioned photo',
    '--input',
    `subtitles=@${subs}`,
    '--input',
    'note=@@home',
    '--input',
    `photo=@${photo}`,
    '--no-download',
    '--json',
  ]);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  const { run } = res.json<{ run: AnyRun }>();
  expect(run.inputs).toEqual([
    { id: 'subtitles', value: srt },
    { id: 'note', value: '@home' },
    { id: 'photo', value: { asset_ids: [expect.any(String)] } },
  ]);
  expect(run.results).toMatchObject([
    { id: 'subtitles', value: srt },
    { id: 'note', value: '@home' },
    { id: 'photo', value: [expect.any(String)] },
  ]);
  const [assetId] = (run.inputs[2]!.value as { asset_ids: string[] }).asset_ids;
  const copy = path.join(tmp, 'uploaded.png');
  await cli.client.download(assetId!, copy);
  expect(fs.readFileSync(copy)).toEqual(png);

  // An app says the same of its inputs: type text.
  const { data: app } = await cli.client.api.POST('/apps', {
    body: {
      name: 'Captioned photo app',
      description: 'x',
      agent_id: agent.id,
      inputs: [
        { id: 'subtitles', type: 'text', name: 'Subtitles', required: true },
        { id: 'note', type: 'text', name: 'Note', required: true },
        { id: 'photo', type: 'image', name: 'Photo', required: true },
      ],
      outputs: [{ id: 'subtitles', type: 'text', description: 'The subtitles' }],
    },
  });
  const viaApp = await cli.weft([
    'run',
    app!.id,
    '--input',
    `subtitles=@${subs}`,
    '--input',
    'note=@@home',
    '--input',
    `photo=@${photo}`,
    '--no-download',
  ]);
  expect(viaApp.code).toBe(0);
  expect(viaApp.stdout).toBe(`subtitles: ${srt}\n`);

  // A missing file names the input and the path; a text input refuses a file that is not UTF-8.
  const missing = await cli.weft(['run', agent.id, '--input', `subtitles=@${path.join(tmp, 'none.srt')}`]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(`input "subtitles": no such file ${path.join(tmp, 'none.srt')}`);
  const binary = await cli.weft(['run', agent.id, '--input', `subtitles=@${photo}`, '--input', 'note=x']);
  expect(binary).toMatchObject({
    code: 1,
    stderr: `error: input "subtitles" takes text, and ${photo} is not UTF-8 text\n`,
  });
});

test("a name runs the organization's own agent before another organization's public one", async () => {
  const publish = async (apiKey: string, visibility: 'public' | 'private') => {
    const client = new WeftClient({ baseUrl: cli.url, apiKey });
    const { data } = await client.api.POST('/agents', {
      body: { name: 'Line picker', description: 'x', visibility, flow: flows.split() },
    });
    return data!.id;
  };
  const other = await cli.stack.gw.createOrg('Other org', 100);
  const theirs = await publish(other.apiKey, 'public');
  const mine = await publish(cli.apiKey, 'private');

  const res = await cli.weft(['run', 'line picker', '--input', 'text=own\nfirst', '--json']);
  expect(res.stderr).toBe('');
  expect(res.json<{ run: AnyRun }>().run).toMatchObject({ agent_id: mine, status: 'completed' });
  const got = await cli.weft(['agents', 'get', 'Line picker']);
  expect(got.json()).toMatchObject({ id: mine });

  // An organization without one of its own sees two public ones: it must choose, and is told whose they are.
  const third = await cli.stack.gw.createOrg('Third org', 100);
  const alsoPublic = await publish(third.apiKey, 'public');
  const outsider = await cli.stack.gw.createOrg('Outsider org', 100);
  const ambiguous = await cli.weft(['run', 'Line picker', '--input', 'text=x'], { WEFT_API_KEY: outsider.apiKey });
  expect(ambiguous.code).toBe(1);
  expect(ambiguous.stderr).toContain(`agent ${theirs} (public, another organization)`);
  expect(ambiguous.stderr).toContain(`agent ${alsoPublic} (public, another organization)`);
});

test('the same command again follows the run it started; --new starts another', async () => {
  const agent = await cli.agent('Once', flows.split());
  const args = ['run', agent.id, '--input', 'text=one\ntwo'];
  const first = await cli.weft(args);
  const again = await cli.weft(args);
  expect(again.stderr).toMatch(/following run \S+, started before with the same external_id/);
  expect(again.stdout).toBe(first.stdout);
  expect(await countRuns(agent.id)).toBe(1);

  const other = await cli.weft([...args.slice(0, 2), '--input', 'text=one\nthree']);
  expect(other.stderr).toMatch(/started/);
  const fresh = await cli.weft([...args, '--new']);
  expect(fresh.stderr).toMatch(/started/);
  expect(await countRuns(agent.id)).toBe(3);
});

test('a review without a terminal stops with exit status 4 and says how to decide it; --approve-all approves', async () => {
  const agent = await cli.agent('Reviewed', flows.review());
  const stopped = await cli.weft(['run', agent.id, '--input', 'topic=tea']);
  expect(stopped.code).toBe(4);
  expect(stopped.stderr).toMatch(/waits for review "check".*weft runs watch/s);
  const [waiting] = (await toArray(cli.client.runs.list({ status: 'in_progress' }))).filter(
    (r) => r.agent_id === agent.id,
  );
  expect(waiting).toMatchObject({ awaiting_human_review: true });

  // Watching it again with --approve-all decides it and ends with the run.
  const watched = await cli.weft(['runs', 'watch', waiting!.id, '--approve-all']);
  expect(watched.code).toBe(0);
  expect(watched.stdout).toBe('check: tea / friendly\n');
  // Its progress, from the gateway's event stream: where the run stood, the node the decision settled, the end.
  const progress = watched.stderr.split('\n').map((l) => l.replace(/^\[\d\d:\d\d\] /, ''));
  expect(progress).toEqual(
    expect.arrayContaining([
      `run ${waiting!.id}: in_progress 75%, waiting for review`,
      'node check (human_review): completed',
      `run ${waiting!.id}: completed`,
    ]),
  );

  const json = await cli.weft([
    'run',
    agent.id,
    '--input',
    'topic=coffee',
    '--input',
    'tone=formal',
    '--json',
    '--approve-all',
  ]);
  expect(json.code).toBe(0);
  expect(json.json<{ run: AnyRun }>().run.results[0]).toMatchObject({ value: 'coffee / formal' });
});

test('exit status says how the run ended: 1 failed, 3 canceled', async () => {
  const costly = await cli.agent('Costly', flows.split(), { estimated_cost: 100_000 });
  const failed = await cli.weft(['run', costly.id, '--input', 'text=x']);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toMatch(/failed \(insufficient_credits\)/);

  const agent = await cli.agent('Canceled', flows.review());
  const started = await cli.client.run(agent.id, { topic: 'x' }, { wait: false });
  const cancel = await cli.weft(['runs', 'cancel', started.id]);
  expect(cancel.json()).toEqual({ id: started.id, canceled: true });
  const watched = await cli.weft(['runs', 'watch', started.id, '--json']);
  expect(watched.code).toBe(3);
  expect(watched.json<{ run: AnyRun }>().run.status).toBe('canceled');
  const again = await cli.weft(['runs', 'cancel', started.id]);
  expect(again.code).toBe(3);
  expect(again.json()).toEqual({ id: started.id, canceled: false, status: 'canceled' });
});

test('reports what it cannot do without a stack trace', async () => {
  const missing = await cli.weft(['run', 'No such thing']);
  expect(missing).toMatchObject({
    code: 1,
    stderr: 'error: No agent or app named "No such thing" is visible to this organization\n',
  });
  const badInput = await cli.weft(['run', 'Lines', '--input', 'photo=@/nonexistent.png']);
  expect(badInput.code).toBe(1);
  expect(badInput.stderr).toMatch(/input "photo": no such file \/nonexistent\.png/);
  const noKey = await cli.weft(['runs', 'list'], { WEFT_API_KEY: undefined });
  expect(noKey.stderr).toMatch(/An API key is required/);
  const refused = await cli.weft(['run', 'Lines', '--input', 'nope=x']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^error: POST \/runs failed with 422: body\.inputs/);
});

async function countRuns(agentId: string): Promise<number> {
  return (await toArray(cli.client.runs.list())).filter((r) => r.agent_id === agentId).length;
}
