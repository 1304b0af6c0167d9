import type http from 'node:http';
import { WeftClient } from './client';
import { WeftApiError } from './errors';
import type { RunEvent } from './events';
import { json, startLoopback, type Loopback } from './testing/loopback';

// Following a run over its event stream, in the cases the real gateway cannot
// be made to produce on demand: a stream dropped mid-run, one gone idle, a
// gateway without the events route (polling). This loopback server speaks the
// protocol of events.ts; client.int.test.ts follows real runs through the gateway.

const RUN_ID = '0195a3b0-0000-7000-8000-0000000000aa';
const REVIEW_ID = '0195a3b0-0000-7000-8000-0000000000bb';
const base = {
  id: RUN_ID,
  agent_id: '0195a3b0-0000-7000-8000-000000000001',
  agent_version: 1,
  created_at: '2026-11-26T18:30:00.000Z',
  inputs: [],
  results: [],
  awaiting_human_review: false,
  pending_reviews: [],
};
const running = { ...base, status: 'in_progress', progress: 0.5, current_node: 'text_split' };
const done = { ...base, status: 'completed', progress: 1, results: [{ id: 'first', type: 'text', value: 'a' }] };
const node = (status: string) => ({
  node_id: 'lines',
  type: 'text_split',
  status,
  started_at: '2026-11-26T18:30:00.000Z',
  completed_at: null,
  cost: null,
  error: null,
});

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function sse(res: http.ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  return (event: string, id: string, data: unknown) =>
    res.write(`event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
}

const client = (url: string) =>
  new WeftClient({ baseUrl: url, apiKey: 'weft_test', follow: { reconnectDelayMs: 20, pollMinMs: 10, pollMaxMs: 20 } });

async function collect(url: string, options: Parameters<WeftClient['wait']>[1] = {}) {
  const events: RunEvent[] = [];
  const final = await client(url).wait(
    { kind: 'agent', id: RUN_ID },
    { ...options, onEvent: (e) => void events.push(e) },
  );
  return { events, final };
}

test('reads run, node and end events; a stream closed without end is resumed from Last-Event-ID', async () => {
  let connections = 0;
  server = await startLoopback((req, res) => {
    expect(req.url).toBe(`/runs/${RUN_ID}/events`);
    const send = sse(res);
    if (++connections === 1) {
      res.write(': keep-alive\n\n');
      send('run', '1', running);
      send('node', '2', node('running'));
      res.write('event: future\nid: 3\ndata: {}\n\n'); // an event this client does not know is skipped
      res.end(); // closed without end: the client comes back
      return;
    }
    send('run', '4', running);
    send('node', '5', node('completed'));
    send('end', '6', done);
    res.end();
  });
  const { events, final } = await collect(server.url);
  expect(final).toEqual(done);
  expect(events).toEqual([
    { type: 'run', run: running, id: '1' },
    { type: 'node', node: node('running'), id: '2' },
    { type: 'run', run: running, id: '4' },
    { type: 'node', node: node('completed'), id: '5' },
    { type: 'end', run: done, id: '6' },
  ]);
  expect(server.seen.map((r) => r.headers['last-event-id'])).toEqual([undefined, '3']);
  expect(
    server.seen.every((r) => r.headers.accept === 'text/event-stream' && r.headers['x-api-key'] === 'weft_test'),
  ).toBe(true);
});

test('deltas have no id: a stream dropped after one resumes after the last event that had one', async () => {
  let connections = 0;
  const delta = (index: number, text: string) =>
    `event: delta\ndata: ${JSON.stringify({ node_id: 'write', index, text })}\n\n`;
  server = await startLoopback((_req, res) => {
    const send = sse(res);
    if (++connections === 1) {
      send('run', '1', running);
      res.write(delta(0, 'Hel'));
      res.write(delta(1, 'lo'));
      res.end();
      return;
    }
    res.write(delta(2, '!'));
    send('end', '2', done);
    res.end();
  });
  const deltas: unknown[] = [];
  const { events, final } = await collect(server.url, { onDelta: (d) => void deltas.push(d) });
  expect(final).toEqual(done);
  expect(events.map((e) => e.type)).toEqual(['run', 'end']);
  expect(deltas).toEqual([
    { node_id: 'write', index: 0, text: 'Hel' },
    { node_id: 'write', index: 1, text: 'lo' },
    { node_id: 'write', index: 2, text: '!' },
  ]);
  expect(server.seen.map((r) => r.headers['last-event-id'])).toEqual([undefined, '1']);
  // A follower that did not ask for deltas sees the stream as it was.
  connections = 0;
  const plain: RunEvent[] = [];
  for await (const event of client(server.url).follow({ kind: 'agent', id: RUN_ID })) plain.push(event);
  expect(plain.map((e) => e.type)).toEqual(['run', 'end']);
});

test('a broken connection is resumed too', async () => {
  let connections = 0;
  server = await startLoopback((req, res) => {
    const send = sse(res);
    if (++connections === 1) {
      send('run', 'a', running);
      setImmediate(() => req.socket.destroy());
      return;
    }
    send('run', 'b', done);
    send('end', 'c', done);
    res.end();
  });
  const { final } = await collect(server.url);
  expect(final).toEqual(done);
  expect(server.seen[1]!.headers['last-event-id']).toBe('a');
});

test('a stream that goes silent past the idle timeout is reopened', async () => {
  let connections = 0;
  server = await startLoopback((_req, res) => {
    const send = sse(res);
    if (++connections === 1) return void send('run', '1', running); // then nothing, not even a keep-alive
    send('end', '2', done);
    res.end();
  });
  const events: RunEvent[] = [];
  const final = await client(server.url).wait(
    { kind: 'agent', id: RUN_ID },
    { idleTimeoutMs: 200, onEvent: (e) => void events.push(e) },
  );
  expect(final).toEqual(done);
  expect(server.seen.map((r) => r.headers['last-event-id'])).toEqual([undefined, '1']);
});

test('a run that has ended: run then end', async () => {
  server = await startLoopback((_req, res) => {
    const send = sse(res);
    send('run', '9', done);
    send('end', '9', done);
    res.end();
  });
  const { events } = await collect(server.url);
  expect(events.map((e) => e.type)).toEqual(['run', 'end']);
});

test('a review announced by a node event is read from the run and decided through onReview', async () => {
  const parked = {
    ...running,
    awaiting_human_review: true,
    pending_reviews: [{ id: REVIEW_ID, node_id: 'check', proposed_output: { prompts: ['tea'] } }],
  };
  let decided = false;
  server = await startLoopback((req, res, seen) => {
    if (req.url === `/runs/${RUN_ID}` && req.method === 'GET') return json(res, 200, decided ? running : parked);
    if (req.url === `/runs/${RUN_ID}/reviews/${REVIEW_ID}` && req.method === 'POST') {
      expect(JSON.parse(seen.body)).toEqual({ decision: 'approve', output: { prompts: ['tea, edited'] } });
      decided = true;
      res.writeHead(204).end();
      return;
    }
    const send = sse(res);
    if (!decided) {
      send('run', '1', running);
      send('node', '2', { ...node('waiting_review'), node_id: 'check', type: 'human_review' });
      // The stream stays open: the decision comes in on another request, then the end.
      const timer = setInterval(() => {
        if (!decided) return;
        clearInterval(timer);
        send('node', '3', { ...node('completed'), node_id: 'check', type: 'human_review' });
        send('end', '4', done);
        res.end();
      }, 5);
      return;
    }
    send('end', '4', done);
    res.end();
  });
  const reviews: unknown[] = [];
  const { final } = await collect(server.url, {
    onReview: (review) => {
      reviews.push(review);
      return { decision: 'approve', output: { prompts: ['tea, edited'] } };
    },
  });
  expect(final).toEqual(done);
  expect(reviews).toEqual([parked.pending_reviews[0]]);
});

test('a 404 on the stream of a run GET finds means no stream here: the run is polled', async () => {
  let polls = 0;
  server = await startLoopback((req, res) => {
    if (req.url!.endsWith('/events')) return json(res, 404, { detail: 'Not Found' });
    json(res, 200, ++polls < 3 ? running : done);
  });
  const { events, final } = await collect(server.url);
  expect(final).toEqual(done);
  expect(events).toEqual([
    { type: 'run', run: running },
    { type: 'run', run: done },
    { type: 'end', run: done },
  ]);
  expect(server.seen.filter((r) => r.url.endsWith('/events'))).toHaveLength(1);
});

test('405 and 501 fall back to polling; a run GET does not find either is its 404', async () => {
  for (const status of [405, 501]) {
    const s = await startLoopback((req, res) =>
      req.url!.endsWith('/events') ? json(res, status, { detail: 'no' }) : json(res, 200, done),
    );
    await expect(collect(s.url)).resolves.toMatchObject({ final: done });
    await s.close();
  }
  server = await startLoopback((_req, res) => json(res, 404, { detail: 'Run not found' }));
  const err = await collect(server.url).catch((e) => e);
  expect(err).toBeInstanceOf(WeftApiError);
  expect(err).toMatchObject({ status: 404, code: 'not_found', path: `/runs/${RUN_ID}` });
});
