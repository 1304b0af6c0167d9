import { startLoopbackServer, type LoopbackServer } from '@weft/testing';
import { runCli } from '../cli';

// `weft runs watch` over a run's event stream. The gateway's stream may not
// serve every run yet (run.int.test.ts follows real runs by polling); this
// loopback server speaks the stream's protocol (see @weft/sdk's events.ts).

const RUN_ID = '0195a3b0-0000-7000-8000-0000000000aa';
const base = {
  id: RUN_ID,
  agent_id: '0195a3b0-0000-7000-8000-000000000001',
  agent_version: 1,
  created_at: '2026-11-26T18:30:00.000Z',
  inputs: [],
  awaiting_human_review: false,
  pending_reviews: [],
};
const at = (progress: number) => ({ ...base, status: 'in_progress', progress, results: [] });
const done = { ...base, status: 'completed', progress: 1, results: [{ id: 'first', type: 'text', value: 'alpha' }] };
const node = (id: string, status: string) => ({
  node_id: id,
  type: 'text_split',
  status,
  started_at: null,
  completed_at: null,
  cost: null,
  error: null,
});

let server: LoopbackServer;
let reads = 0;
let release: () => void = () => undefined;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.url === `/runs/${RUN_ID}`) {
      reads++;
      // The first read finds the run; the one a settled node triggers sees it half done.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reads === 1 ? at(0) : at(0.5)));
      if (reads > 1) release();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (event: string, id: number, data: unknown) =>
      res.write(`event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
    send('run', 1, at(0));
    send('node', 2, node('lines', 'running'));
    send('node', 3, node('lines', 'completed'));
    // The end comes once the settled node made the command read the run again.
    void new Promise<void>((resolve) => (release = resolve)).then(() => {
      send('end', 4, done);
      res.end();
    });
  });
});
afterAll(() => server.close());

test('shows the progress the run reports as its nodes settle, then its results', async () => {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['runs', 'watch', RUN_ID], {
    env: { WEFT_URL: server.origin, WEFT_API_KEY: 'weft_test' },
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  expect(code).toBe(0);
  const lines = stderr.split('\n').map((l) => l.replace(/^\[\d\d:\d\d\] /, ''));
  expect(lines).toEqual(
    expect.arrayContaining([
      `run ${RUN_ID}: in_progress 0%`,
      'node lines (text_split): running',
      'node lines (text_split): completed',
      `run ${RUN_ID}: in_progress 50%`,
      `run ${RUN_ID}: completed`,
    ]),
  );
  expect(stdout).toBe('first: alpha\n');
});
