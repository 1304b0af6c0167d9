import type { ServerResponse } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Flow } from '@weft/contracts';
import { waitFor } from '@weft/testing';
import { createParser } from 'eventsource-parser';
import request from 'supertest';
import { postAgent } from '../../testing/catalog-fixtures';
import { baseUrl, openEventStream, type EventStreamClient, type StreamEvent } from '../../testing/event-stream';
import { startRunStack, type RunStack } from '../../testing/test-runs';

// GET /runs/{id}/events with a client that stops reading (docs/api.md#following-a-run-live):
// the gateway keeps no queue for it however much the run changes meanwhile, cuts it off after
// two keep-alive intervals, forgets it, and the client resumes with the last id it received.

const KEEPALIVE_MS = 1000;
// Each pending review proposes the whole topic: the record (every `run` event) carries it once per review,
// over 1 MiB at first. Loopback sockets take a few MiB before a write has to wait; a few records fill them.
const REVIEWS = 40;
const TOPIC = 'tea '.repeat(8 * 1024);

let stack: RunStack;
let apiKey: string;
const sockets: net.Socket[] = [];
const streams: EventStreamClient[] = [];

/** What the gateway did with one events response, seen from its own HTTP server. */
interface Watched {
  url: string;
  res: ServerResponse;
  /** The most bytes written to the response and not yet taken by the connection. */
  maxBuffered: number;
  largestWrite: number;
  /** Since when a refused write (`res.write` answered false) waits for 'drain' (undefined: none waits). */
  waitingSince?: number;
  /** Writes made while an earlier one waited for 'drain'. */
  writesWhileStalled: number;
  closedAt?: number;
  /** How long a write had waited when the response closed (undefined: none waited). */
  waitedAtClose?: number;
}
const watched: Watched[] = [];

beforeAll(async () => {
  stack = await startRunStack({ EVENTS_KEEPALIVE_MS: String(KEEPALIVE_MS) });
  ({ apiKey } = await stack.gw.createOrg('Slow reader', 1000));
  stack.gw.server.on('request', (req, res: ServerResponse) => {
    if (!req.url?.endsWith('/events')) return;
    const w: Watched = { url: req.url, res, maxBuffered: 0, largestWrite: 0, writesWhileStalled: 0 };
    watched.push(w);
    const write = res.write.bind(res) as (chunk: string | Buffer) => boolean;
    res.write = ((chunk: string | Buffer) => {
      if (res.writableNeedDrain) w.writesWhileStalled++;
      const ok = write(chunk);
      w.largestWrite = Math.max(w.largestWrite, Buffer.byteLength(chunk));
      w.maxBuffered = Math.max(w.maxBuffered, res.writableLength);
      if (!ok) w.waitingSince = Date.now();
      return ok;
    }) as typeof res.write;
    res.on('drain', () => (w.waitingSince = undefined));
    res.once('close', () => {
      w.closedAt = Date.now();
      if (w.waitingSince !== undefined) w.waitedAtClose = w.closedAt - w.waitingSince;
    });
  });
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const s of streams) s.close();
  await stack.close();
});

/** topic → REVIEWS reviews of it side by side: each decision is one more change of the run. */
const reviewsFlow = (): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input' },
    ...Array.from({ length: REVIEWS }, (_, i) => ({
      id: `check${i}`,
      type: 'human_review' as const,
      inputs: { value: 'topic' },
    })),
  ],
  outputs: [{ id: 'check0', type: 'text', description: 'Approved topic' }],
});

const getRun = async (runId: string) =>
  (await request(stack.gw.app).get(`/runs/${runId}`).set('X-Api-Key', apiKey)).body as {
    status: string;
    pending_reviews: { id: string; node_id: string }[];
  };

async function approve(runId: string, reviewId: string): Promise<void> {
  const res = await request(stack.gw.app)
    .post(`/runs/${runId}/reviews/${reviewId}`)
    .set('X-Api-Key', apiKey)
    .send({ decision: 'approve', output: { prompts: ['tea'] } });
  expect(res.status).toBe(204);
}

/**
 * A client that sends its GET and then reads nothing: what reaches it stays in its
 * socket's buffers. `received()` reads everything the connection brought, once it is over.
 */
function stalledClient(runId: string): {
  socket: net.Socket;
  received(): Promise<{ body: string; complete: boolean; how: string }>;
} {
  const { port } = stack.gw.server.address() as AddressInfo;
  const socket = net.connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  socket.pause();
  socket.write(
    `GET /runs/${runId}/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      `X-Api-Key: ${apiKey}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  return {
    socket,
    received: () =>
      new Promise((resolve) => {
        const chunks: Buffer[] = [];
        let how = 'end';
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('end', () => (how = 'end'));
        socket.on('error', (err: NodeJS.ErrnoException) => (how = err.code ?? 'error'));
        socket.on('close', () => resolve({ ...dechunk(Buffer.concat(chunks).toString('latin1')), how }));
        socket.resume();
      }),
  };
}

/** The body of a chunked HTTP/1.1 response as far as it came, and whether its last chunk came (a cut one did not). */
function dechunk(raw: string): { body: string; complete: boolean } {
  const head = raw.indexOf('\r\n\r\n');
  expect(raw.slice(0, head)).toMatch(/^HTTP\/1\.1 200 .*\r\n[\s\S]*transfer-encoding: chunked/i);
  let body = '';
  let complete = false;
  let at = head + 4;
  while (at < raw.length) {
    const eol = raw.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(raw.slice(at, eol), 16);
    if (size === 0) {
      complete = true;
      break;
    }
    body += raw.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
  return { body: Buffer.from(body, 'latin1').toString('utf8'), complete };
}

/** The events of an SSE body that arrived whole (a last one cut short is not an event). */
function eventsOf(body: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  const parser = createParser({
    onEvent: (m) => events.push({ event: m.event ?? 'message', id: m.id ?? '', data: JSON.parse(m.data) }),
  });
  parser.feed(body);
  return events;
}

test('a client that stops reading is cut off without the gateway queueing for it, and resumes to the latest state', async () => {
  const agent = await postAgent(stack.gw.app, apiKey, { flow: reviewsFlow() });
  const created = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: TOPIC }] });
  expect(created.status).toBe(201);
  const runId = created.body.id as string;
  const parked = await waitFor('every review to wait', async () => {
    const run = await getRun(runId);
    return run.pending_reviews.length === REVIEWS ? run : undefined;
  });
  const recordBytes = Buffer.byteLength(JSON.stringify(parked));
  expect(recordBytes).toBeGreaterThan(REVIEWS * TOPIC.length);

  // The client connects and reads nothing.
  const client = stalledClient(runId);
  const w = await waitFor('the stream to send its first events', () =>
    watched.find((x) => x.url === `/runs/${runId}/events` && x.largestWrite > 0),
  );
  expect(stack.gw.deps.runEvents.size).toBe(1);

  // The run changes again and again: each change is a whole new record, sent or waiting to be.
  let changedWhileStalled = 0;
  let bytesOfChanges = 0;
  for (const review of parked.pending_reviews.slice(1)) {
    await approve(runId, review.id);
    if (w.closedAt === undefined && w.waitingSince !== undefined) {
      changedWhileStalled++;
      bytesOfChanges += Buffer.byteLength(JSON.stringify(await getRun(runId)));
    }
  }

  // Nothing was written while a write waited: never more than one write plus the response's own buffer,
  // though a queue would have had to hold every record the run went through meanwhile.
  const expectNoQueue = () => {
    expect(w.writesWhileStalled).toBe(0);
    expect(w.maxBuffered).toBeLessThanOrEqual(w.largestWrite + w.res.writableHighWaterMark);
  };
  expectNoQueue();
  expect(changedWhileStalled).toBeGreaterThanOrEqual(3);
  expect(bytesOfChanges).toBeGreaterThan(2 * w.maxBuffered);

  // Cut off within a few keep-alive intervals of the write it stopped taking, and forgotten.
  await waitFor('the gateway to cut the client off', () => w.closedAt !== undefined, { intervalMs: 10 });
  expect(w.waitedAtClose).toBeDefined();
  expect(w.waitedAtClose!).toBeGreaterThanOrEqual(2 * KEEPALIVE_MS);
  expect(w.waitedAtClose!).toBeLessThanOrEqual(8 * KEEPALIVE_MS);
  await waitFor('the hub to forget the stream', () => stack.gw.deps.runEvents.size === 0, { intervalMs: 10 });
  expectNoQueue();

  // The client reads what its connection holds: events, then the connection ends without `end`.
  const { body, complete, how } = await client.received();
  expect(how).toMatch(/^(end|ECONNRESET)$/);
  expect(complete).toBe(false);
  const before = eventsOf(body);
  expect(before[0]).toMatchObject({ event: 'run', data: { id: runId, status: 'in_progress' } });
  expect(before.some((e) => e.event === 'end')).toBe(false);

  // Resumed from the last event it had whole: the record now, the changes it missed, once each.
  const after = await openEventStream(baseUrl(stack.gw.server), `/runs/${runId}/events`, {
    'X-Api-Key': apiKey,
    'Last-Event-ID': before.at(-1)!.id,
  });
  streams.push(after);
  expect(after.status).toBe(200);
  const latest = await getRun(runId);
  expect(latest.pending_reviews.map((r) => r.node_id)).toEqual([parked.pending_reviews[0]!.node_id]);
  const first = await after.until('the record', () => true);
  expect(first).toMatchObject({ event: 'run', data: latest });
  await approve(runId, parked.pending_reviews[0]!.id);
  expect(await after.finished()).toBe('ended');
  const final = await getRun(runId);
  expect(final.status).toBe('completed');
  expect(after.events.at(-1)).toMatchObject({ event: 'end', data: final });

  const ids = [...before, ...after.events].map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length);
  const states: Record<string, string> = {};
  for (const e of [...before, ...after.events]) if (e.event === 'node') states[e.data.node_id] = e.data.status;
  expect(Object.values(states)).toEqual(Array<string>(REVIEWS + 1).fill('completed'));
});
