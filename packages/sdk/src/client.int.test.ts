import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pngBytes } from '@weft/gateway';
import { WeftApiError, WeftError } from './errors';
import type { RunEvent } from './events';
import { toArray } from './pagination';
import { createAgent, flows, startSdkStack, type SdkStack } from './testing/sdk-stack';
import type { PendingReview, Run } from './types';
import { file } from './upload';

// The SDK against the real gateway and workers. The gateway has no event
// stream yet for these runs, so run() and wait() follow them by polling here;
// events.test.ts covers the stream.

let sdk: SdkStack;
let tmp: string;

beforeAll(async () => {
  sdk = await startSdkStack();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-sdk-'));
});
afterAll(async () => {
  await sdk?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('upload', () => {
  it('takes a path, bytes and a stream, and detects the type from the bytes', async () => {
    const png = await pngBytes(40, 30);
    const onDisk = path.join(tmp, 'photo.png');
    fs.writeFileSync(onDisk, png);

    const fromPath = await sdk.client.upload(onDisk);
    const fromBytes = await sdk.client.upload(png, { filename: 'bytes.png' });
    const fromStream = await sdk.client.upload(Readable.from([png.subarray(0, 100), png.subarray(100)]), {
      filename: 'stream.png',
    });
    const fromWebStream = await sdk.client.upload(file(new Blob([png]).stream(), 'web.png'));
    for (const asset of [fromPath, fromBytes, fromStream, fromWebStream]) {
      expect(asset).toMatchObject({ asset_type: 'reference', media_type: 'image', media_extension: 'png' });
    }
    // The bytes stored are the bytes sent.
    const back = path.join(tmp, 'back.png');
    await sdk.client.download(fromStream.id, back);
    expect(fs.readFileSync(back).equals(png)).toBe(true);
  });

  it('a second upload with the same external_id resolves to the first asset', async () => {
    const png = await pngBytes(20, 20);
    const first = await sdk.client.upload(png, { externalId: 'logo-v1' });
    const second = await sdk.client.upload(await pngBytes(30, 30), { externalId: 'logo-v1' });
    expect(second.id).toBe(first.id);
    expect(second.external_id).toBe('logo-v1');
    expect(await toArray(sdk.client.assets.list({ external_id: 'logo-v1' }))).toHaveLength(1);
  });

  it('reports a refused upload as a WeftApiError with the gateway’s detail', async () => {
    const err = await sdk.client
      .upload(Buffer.from('not an image at all \u0001\u0002'), { filename: 'x.png' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(WeftApiError);
    expect(err).toMatchObject({ status: 400, code: 'bad_request' });
    expect(err.message).toMatch(/POST \/assets\/upload failed with 400: /);
  });
});

describe('run', () => {
  it('runs an agent by name to completion and resolves to the final run', async () => {
    const agent = await createAgent(sdk.client, 'Split lines', flows.split());
    const events: RunEvent[] = [];
    const run = await sdk.client.run('split lines', { text: 'first\nsecond' }, { onEvent: (e) => void events.push(e) });
    expect(run).toMatchObject({
      agent_id: agent.id,
      status: 'completed',
      results: [{ id: 'first', type: 'text', value: 'first' }],
    });
    expect(events[0]!.type).toBe('run');
    // Followed through the gateway's event stream, whose events carry ids (polling's have none).
    expect(events.at(-1)).toEqual({ type: 'end', run, id: expect.any(String) });
  });

  it('uploads file inputs first and downloads the output to a directory', async () => {
    const agent = await createAgent(sdk.client, 'Square', flows.square());
    const onDisk = path.join(tmp, 'wide.png');
    fs.writeFileSync(onDisk, await pngBytes(80, 40));
    const run = await sdk.client.run(agent.id, { photo: file(onDisk) });
    expect(run.status).toBe('completed');
    expect(run.inputs[0]!.value).toEqual({ asset_ids: [expect.any(String)] });
    const [assetId] = run.results[0]!.value as string[];

    const out = fs.mkdtempSync(path.join(tmp, 'out-'));
    const saved = await sdk.client.download(assetId!, out);
    expect(path.dirname(saved.path!)).toBe(out);
    expect(path.extname(saved.path!)).toBe('.png');
    expect(fs.readdirSync(out)).toEqual([path.basename(saved.path!)]); // no .part left behind
    // A PNG's IHDR chunk holds its width and height at bytes 16 and 20.
    const written = fs.readFileSync(saved.path!);
    expect([written.readUInt32BE(16), written.readUInt32BE(20)]).toEqual([40, 40]);
  });

  it('decides reviews through onReview: a retry, then an approval with edits', async () => {
    await createAgent(sdk.client, 'Post idea', flows.review());
    const asked: PendingReview[] = [];
    const run = await sdk.client.run(
      'Post idea',
      { topic: 'tea' },
      {
        onReview: (review) => {
          asked.push(review);
          if (asked.length === 1) return { decision: 'retry' };
          return {
            decision: 'approve',
            output: { prompts: [`${(review.proposed_output as { prompts: string[] }).prompts[0]}, edited`] },
          };
        },
      },
    );
    expect(asked).toHaveLength(2);
    expect(asked[1]!.id).not.toBe(asked[0]!.id); // a retry proposes under a new review id
    expect(asked.map((r) => r.proposed_output)).toEqual([
      { prompts: ['tea / friendly'] },
      { prompts: ['tea / friendly'] },
    ]);
    expect(run).toMatchObject({ status: 'completed', results: [{ id: 'check', value: 'tea / friendly, edited' }] });
  });

  it('approves the proposal as it is when onReview says approve without output', async () => {
    const agent = await createAgent(sdk.client, 'Review as is', flows.review());
    const run = await sdk.client.run(
      agent.id,
      { topic: 'cats', tone: 'formal' },
      { onReview: () => ({ decision: 'approve' }) },
    );
    expect(run.results).toEqual([expect.objectContaining({ value: 'cats / formal' })]);
  });

  it('with the same external_id follows the first run instead of starting another', async () => {
    const agent = await createAgent(sdk.client, 'Idempotent', flows.split());
    const created: boolean[] = [];
    const options = {
      externalId: 'nightly-2026-11-26',
      onCreated: (_r: unknown, i: { created: boolean }) => void created.push(i.created),
    };
    const first = await sdk.client.run(agent.id, { text: 'a\nb' }, options);
    const second = await sdk.client.run(agent.id, { text: 'a\nb' }, options);
    expect(second.id).toBe(first.id);
    expect(created).toEqual([true, false]);
    expect(await toArray(sdk.client.runs.list({ external_id: 'nightly-2026-11-26' }))).toHaveLength(1);

    // The same key for another agent is not this run: reported, not followed.
    const other = await createAgent(sdk.client, 'Other', flows.split());
    await expect(sdk.client.run(other.id, { text: 'x' }, { externalId: 'nightly-2026-11-26' })).rejects.toThrow(
      /already names run .* of another agent/,
    );
  });

  it('reuses the uploads of a run started again with its external_id', async () => {
    const client = await sdk.newClient();
    const agent = await createAgent(client, 'Square again', flows.square());
    const png = await pngBytes(50, 20);
    const first = await client.run(agent.id, { photo: png }, { externalId: 'square-once' });
    const again = await client.run(agent.id, { photo: png }, { externalId: 'square-once' });
    expect(again.id).toBe(first.id);
    const uploads = (await toArray(client.assets.list())).filter((a) => a.asset_type === 'reference');
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.external_id).toMatch(/^run-input:[0-9a-f]{64}$/);
  });

  it('names what is wrong with a target that does not resolve', async () => {
    await expect(sdk.client.run('no such agent', {})).rejects.toThrow(/No agent or app named "no such agent"/);
    await expect(sdk.client.run('0195a3b0-0000-7000-8000-00000000dead', {})).rejects.toThrow(WeftError);
  });

  it('reports refused inputs as a 422 with every problem', async () => {
    const agent = await createAgent(sdk.client, 'Strict', flows.split());
    const err = await sdk.client.run(agent.id, { nope: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(WeftApiError);
    expect(err.status).toBe(422);
    expect(err.details.map((d: { loc: unknown[] }) => d.loc.join('.'))).toEqual(
      expect.arrayContaining(['body.inputs.0.id']),
    );
  });
});

describe('cancel', () => {
  it('cancels a run waiting for review; the wait ends with the canceled run', async () => {
    const agent = await createAgent(sdk.client, 'To cancel', flows.review());
    const started = (await sdk.client.run(agent.id, { topic: 'x' }, { wait: false })) as Run;
    const waiting = sdk.client.wait(started, {
      onReview: async () => {
        expect(await sdk.client.cancel(started)).toBe(true);
        return undefined;
      },
    });
    const ended = await waiting;
    expect(ended).toMatchObject({ id: started.id, status: 'canceled', failure_reason: 'canceled' });
    expect(await sdk.client.cancel(started)).toBe(false); // already ended: 409
  });

  it('an aborted wait stops following without canceling the run', async () => {
    const agent = await createAgent(sdk.client, 'Abort wait', flows.review());
    const controller = new AbortController();
    let runId = '';
    const run = sdk.client.run(
      agent.id,
      { topic: 'y' },
      {
        signal: controller.signal,
        onCreated: (r) => void (runId = r.id),
        onEvent: (e) => {
          if (e.type === 'run' && e.run.awaiting_human_review) controller.abort(new Error('stop'));
        },
      },
    );
    await expect(run).rejects.toThrow('stop');
    expect(await sdk.client.runs.get(runId)).toMatchObject({ status: 'in_progress', awaiting_human_review: true });
  });

  it('with cancelOnAbort, aborting the wait cancels the run too', async () => {
    const agent = await createAgent(sdk.client, 'Abort and cancel', flows.review());
    const controller = new AbortController();
    let runId = '';
    const run = sdk.client.run(
      agent.id,
      { topic: 'z' },
      {
        signal: controller.signal,
        cancelOnAbort: true,
        onCreated: (r) => void (runId = r.id),
        onReview: () => void controller.abort(new Error('stop')),
      },
    );
    await expect(run).rejects.toThrow('stop');
    expect(await sdk.client.runs.get(runId)).toMatchObject({ status: 'canceled' });
  });
});

describe('lists', () => {
  it('follow cursors across pages, newest first, without repeating anything', async () => {
    const client = await sdk.newClient();
    const agent = await createAgent(client, 'Many', flows.split());
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await client.runs.create({ agent_id: agent.id, inputs: [{ id: 'text', value: `${i}` }] })).run.id);
    const listed = await toArray(client.runs.list({ limit: 2 }));
    expect(listed.map((r) => r.id)).toEqual([...ids].reverse());
    const agents = await toArray(client.agents.list({ limit: 1 }));
    expect(agents.map((a) => a.id)).toEqual([agent.id]);
    // The short lists answer whole, through the same iterators.
    expect(await toArray(client.nodeRoutes.list())).toEqual([]);
    expect((await toArray(client.nodeTypes.list())).map((t) => t.type)).toContain('text_split');
    expect(await toArray(client.credentials.list())).toEqual([]);
  });

  it('lists apps and app runs, and runs an app by name', async () => {
    const client = await sdk.newClient();
    const agent = await createAgent(client, 'App base', flows.split());
    const { data: app } = await client.api.POST('/apps', {
      body: {
        name: 'First line app',
        description: 'x',
        agent_id: agent.id,
        inputs: [{ id: 'text', type: 'text', name: 'Text', required: true }],
        outputs: [{ id: 'first', type: 'text', description: 'First' }],
      },
    });
    expect(app).toBeDefined();
    const run = await client.run('First line app', { text: 'one\ntwo' });
    expect(run).toMatchObject({ app_id: app!.id, status: 'completed', results: [{ id: 'first', value: 'one' }] });
    expect((await toArray(client.appRuns.list())).map((r) => r.id)).toEqual([run.id]);
    expect((await toArray(client.apps.list())).map((a) => a.id)).toEqual([app!.id]);
  });
});
