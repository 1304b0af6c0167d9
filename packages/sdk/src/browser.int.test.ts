import net from 'node:net';
import { pngBytes } from '@weft/gateway';
import { openSdkPage, type SdkPage } from './testing/browser-page';
import { createAgent, flows, startSdkStack, type SdkStack } from './testing/sdk-stack';

// @weft/sdk/browser in real Chromium against the real gateway and workers, as
// a web console uses it: the page is of the gateway's origin.

/** What the page's script defines (testing/browser-page.ts); the callbacks below run in the page. */
declare const WeftSdk: typeof import('./browser');

let sdk: SdkStack;
let browser: SdkPage;

beforeAll(async () => {
  sdk = await startSdkStack();
  browser = await openSdkPage(sdk.baseUrl);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await sdk?.close();
});

const connect = () => ({ baseUrl: sdk.baseUrl, apiKey: sdk.apiKey });

it('uploads a File with progress, runs an agent on it, follows the run and downloads the result', async () => {
  const agent = await createAgent(sdk.client, 'Square in a browser', flows.square());
  const png = await pngBytes(80, 40);

  const seen = await browser.page.evaluate(
    async ({ options, bytes, agentName }) => {
      const weft = new WeftSdk.WeftBrowserClient(options);
      const [found] = await WeftSdk.toArray(weft.agents.list({ search: agentName }), 1);
      const progress: [number, number][] = [];
      const photo = new File([new Uint8Array(bytes)], 'wide.png', { type: 'image/png' });
      const asset = await weft.upload(photo, { onProgress: (sent, total) => progress.push([sent, total]) });
      const { run } = await weft.runs.create({
        agent_id: found!.id,
        inputs: [{ id: 'photo', value: { asset_ids: [asset.id] } }],
      });
      const events: { type: string; id?: string }[] = [];
      const final = await weft.wait(run, { onEvent: (e) => void events.push({ type: e.type, id: e.id }) });
      const [resultId] = final.results[0]!.value as string[];
      const result = await weft.downloadBlob(resultId!);
      const back = await weft.assets.downloadBlob(asset.id);
      return {
        agentId: found!.id,
        asset,
        progress,
        status: final.status,
        events,
        result: { ...result, blob: undefined, bytes: [...new Uint8Array(await result.blob.arrayBuffer())] },
        back: { filename: back.filename, bytes: [...new Uint8Array(await back.blob.arrayBuffer())] },
      };
    },
    { options: connect(), bytes: [...png], agentName: 'Square in a browser' },
  );

  expect(seen.agentId).toBe(agent.id);
  expect(seen.asset).toMatchObject({ media_type: 'image', media_extension: 'png' });
  // Progress counts the multipart body: the file and the form around it, all of it sent in the end.
  const [sent, total] = seen.progress.at(-1)!;
  expect(total).toBeGreaterThan(png.length);
  expect(sent).toBe(total);
  expect(seen.progress.map(([s]) => s)).toEqual([...seen.progress.map(([s]) => s)].sort((a, b) => a - b));

  expect(seen.status).toBe('completed');
  // Followed over the event stream (its events carry ids), to the end.
  expect(seen.events[0]!.type).toBe('run');
  expect(seen.events.at(-1)).toEqual({ type: 'end', id: expect.any(String) });

  expect(seen.result.filename).toMatch(/\.png$/);
  expect(seen.result.contentType).toBe('image/png');
  // A PNG's IHDR chunk holds its width and height at bytes 16 and 20: the 80×40 photo cropped square.
  const square = Buffer.from(seen.result.bytes);
  expect([square.readUInt32BE(16), square.readUInt32BE(20)]).toEqual([40, 40]);
  expect(seen.back.filename).toBe('wide.png');
  expect(Buffer.from(seen.back.bytes).equals(png)).toBe(true);
});

it('keeps a file name beyond ASCII, and resolves a second upload with the same external_id to the first', async () => {
  const [a, b] = [await pngBytes(20, 20), await pngBytes(30, 30)];
  const seen = await browser.page.evaluate(
    async ({ options, a, b }) => {
      const weft = new WeftSdk.WeftBrowserClient(options);
      const first = await weft.upload(new File([new Uint8Array(a)], 'café crème.png'), { externalId: 'browser-logo' });
      const second = await weft.assets.upload(new Blob([new Uint8Array(b)]), { externalId: 'browser-logo' });
      const holders = await WeftSdk.toArray(weft.assets.list({ external_id: 'browser-logo' }));
      const { filename } = await weft.downloadBlob(first.id);
      return { first, second, holders: holders.length, filename };
    },
    { options: connect(), a: [...a], b: [...b] },
  );
  expect(seen.first.external_id).toBe('browser-logo');
  expect(seen.filename).toBe('café crème.png');
  expect(seen.second.id).toBe(seen.first.id);
  expect(seen.holders).toBe(1);
});

it('reports refusals as WeftApiError and an unreachable gateway as WeftConnectionError', async () => {
  const closedPort = await portNobodyListensOn();
  const seen = await browser.page.evaluate(
    async ({ options, closedPort }) => {
      const describe = (err: unknown) => ({
        api: err instanceof WeftSdk.WeftApiError,
        connection: err instanceof WeftSdk.WeftConnectionError,
        status: (err as { status?: number }).status,
        code: (err as { code?: string }).code,
        message: (err as Error).message,
      });
      const failureOf = (call: Promise<unknown>) => call.then(() => describe(new Error('did not fail')), describe);
      const weft = new WeftSdk.WeftBrowserClient(options);
      const notAnImage = new TextEncoder().encode('not an image at all \u0001\u0002');
      const refused = await failureOf(weft.upload(new Blob([notAnImage]), { filename: 'x.png' }));
      const missing = await failureOf(weft.downloadBlob('00000000-0000-4000-8000-000000000000'));
      const anonymous = new WeftSdk.WeftBrowserClient({ baseUrl: options.baseUrl, token: 'not-a-token' });
      const unauthorized = await failureOf(anonymous.upload(new Blob([notAnImage])));
      const away = new WeftSdk.WeftBrowserClient({ baseUrl: `http://127.0.0.1:${closedPort}`, apiKey: options.apiKey });
      const unreachable = await failureOf(away.upload(new Blob([notAnImage])));
      return { refused, missing, unauthorized, unreachable };
    },
    { options: connect(), closedPort },
  );
  expect(seen.refused).toMatchObject({ api: true, status: 400, code: 'bad_request' });
  expect(seen.refused.message).toMatch(/^POST \/assets\/upload failed with 400: /);
  expect(seen.missing).toMatchObject({ api: true, status: 404, code: 'not_found' });
  expect(seen.unauthorized).toMatchObject({ api: true, status: 401, code: 'unauthorized' });
  expect(seen.unreachable).toMatchObject({ api: false, connection: true });
  expect(seen.unreachable.message).toMatch(new RegExp(`^Cannot reach http://127\\.0\\.0\\.1:${closedPort} `));
});

/** A port that was free a moment ago: connections to it are refused. */
async function portNobodyListensOn(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
