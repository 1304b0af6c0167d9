import { WeftClient } from './client';
import { WeftApiError, WeftConnectionError } from './errors';
import { backoffDelay, DEFAULT_RETRY, parseRetryAfter } from './retry';
import { json, startLoopback, type Loopback } from './testing/loopback';

// Retries of 429, 5xx and broken connections, against a loopback server that
// answers what the test needs when it needs it (a real gateway's rate limit
// would make a test wait for its minute window).

const AGENT = { id: '0195a3b0-0000-7000-8000-000000000001', name: 'A', description: '', estimated_cost: 0 };
const RUN = { id: '0195a3b0-0000-7000-8000-000000000002', agent_id: AGENT.id, status: 'in_progress' };

let server: Loopback | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers the listed statuses in turn (then 200/201 with `body`). */
async function answering(statuses: (number | 'drop')[], body: unknown = AGENT, headers: Record<string, string> = {}) {
  let n = 0;
  server = await startLoopback((req, res) => {
    const status = statuses[n++];
    if (status === 'drop') return void req.socket.destroy();
    if (status !== undefined) return json(res, status, { detail: `answer ${status}` }, headers);
    json(res, req.method === 'POST' ? 201 : 200, body);
  });
  return server;
}

const client = (url: string, retry = {}) =>
  new WeftClient({ baseUrl: url, apiKey: 'weft_test', retry: { baseDelayMs: 10, maxDelayMs: 50, ...retry } });

test('a 429 is retried after its Retry-After seconds', async () => {
  const s = await answering([429], AGENT, { 'retry-after': '1' });
  await expect(client(s.url).agents.get(AGENT.id)).resolves.toEqual(AGENT);
  expect(s.seen).toHaveLength(2);
  expect(s.seen[1]!.at - s.seen[0]!.at).toBeGreaterThanOrEqual(990);
  expect(s.seen[1]!.headers['x-api-key']).toBe('weft_test');
});

test('a Retry-After given as an HTTP date is honoured', async () => {
  const s = await answering([503], AGENT, { 'retry-after': new Date(Date.now() + 2000).toUTCString() });
  await client(s.url).agents.get(AGENT.id);
  expect(s.seen).toHaveLength(2);
  // The date has whole seconds: the wait is over one second and under two.
  expect(s.seen[1]!.at - s.seen[0]!.at).toBeGreaterThanOrEqual(990);
});

test('5xx and broken connections of a GET are retried with backoff until an answer', async () => {
  const s = await answering([500, 'drop', 502, 504]);
  await expect(client(s.url).agents.get(AGENT.id)).resolves.toEqual(AGENT);
  expect(s.seen.filter((r) => r.method === 'GET')).toHaveLength(5);
});

test('gives up after maxAttempts and reports the last answer', async () => {
  const s = await answering([503, 503, 503, 503]);
  const err = await client(s.url, { maxAttempts: 3 })
    .agents.get(AGENT.id)
    .catch((e) => e);
  expect(err).toBeInstanceOf(WeftApiError);
  expect(err).toMatchObject({ status: 503, code: 'unavailable', detail: 'answer 503' });
  expect(s.seen).toHaveLength(3);
});

test('a gateway that cannot be reached is a WeftConnectionError after the retries', async () => {
  const s = await answering(['drop', 'drop', 'drop']);
  const err = await client(s.url, { maxAttempts: 3 })
    .agents.get(AGENT.id)
    .catch((e) => e);
  expect(err).toBeInstanceOf(WeftConnectionError);
  expect(err.message).toMatch(/^Cannot reach http:\/\/127\.0\.0\.1:\d+ \(GET \/agents\//);
  expect(s.seen).toHaveLength(3);
});

test('a create without external_id is retried on 429 only: a 503 may have started it', async () => {
  let s = await answering([429], RUN, { 'retry-after': '0' });
  await expect(client(s.url).runs.create({ agent_id: AGENT.id })).resolves.toEqual({ run: RUN, created: true });
  expect(s.seen).toHaveLength(2);
  await s.close();

  s = await answering([503]);
  await expect(client(s.url).runs.create({ agent_id: AGENT.id })).rejects.toMatchObject({ status: 503 });
  expect(s.seen).toHaveLength(1);
  await s.close();

  s = await answering(['drop']);
  await expect(client(s.url).runs.create({ agent_id: AGENT.id })).rejects.toBeInstanceOf(WeftConnectionError);
  expect(s.seen).toHaveLength(1);
});

test('a create with an external_id is retried on 5xx and broken connections, with the same body', async () => {
  const s = await answering([503, 'drop'], RUN);
  const body = { agent_id: AGENT.id, inputs: [{ id: 'text', value: 'x' }], external_id: 'job-1' };
  await expect(client(s.url).runs.create(body)).resolves.toEqual({ run: RUN, created: true });
  expect(s.seen).toHaveLength(3);
  for (const request of s.seen) expect(JSON.parse(request.body)).toEqual(body);
});

test('a review decision is retried on 429 only', async () => {
  const s = await answering([429, 503], undefined, { 'retry-after': '0' });
  await expect(client(s.url).decideReview(RUN.id, RUN.id, { decision: 'retry' })).rejects.toMatchObject({
    status: 503,
  });
  expect(s.seen.map((r) => r.url)).toEqual([`/runs/${RUN.id}/reviews/${RUN.id}`, `/runs/${RUN.id}/reviews/${RUN.id}`]);
});

test('a Retry-After beyond maxRetryAfterMs is not waited for', async () => {
  const s = await answering([429], AGENT, { 'retry-after': '3600' });
  await expect(client(s.url).agents.get(AGENT.id)).rejects.toMatchObject({ status: 429, retryAfterMs: 3_600_000 });
  expect(s.seen).toHaveLength(1);
});

test('an upload of bytes is retried; an upload of a stream is sent once', async () => {
  let s = await answering([429], AGENT, { 'retry-after': '0' });
  await client(s.url).upload(Buffer.from('abc'), { filename: 'a.txt' });
  expect(s.seen).toHaveLength(2);
  expect(s.seen[1]!.body).toContain('abc');
  await s.close();

  s = await answering([429], AGENT, { 'retry-after': '0' });
  const { Readable } = await import('node:stream');
  await expect(client(s.url).upload(Readable.from([Buffer.from('abc')]))).rejects.toMatchObject({ status: 429 });
  expect(s.seen).toHaveLength(1);
});

test('parseRetryAfter reads seconds and HTTP dates; backoff stays under its ceiling', () => {
  const now = Date.parse('2026-11-26T18:30:00Z');
  expect(parseRetryAfter('5', now)).toBe(5000);
  expect(parseRetryAfter('Thu, 26 Nov 2026 18:30:07 GMT', now)).toBe(7000);
  expect(parseRetryAfter('Thu, 26 Nov 2026 18:00:00 GMT', now)).toBe(0);
  expect(parseRetryAfter('soon', now)).toBeUndefined();
  expect(parseRetryAfter(null, now)).toBeUndefined();
  expect(backoffDelay(1, DEFAULT_RETRY, () => 1)).toBe(500);
  expect(backoffDelay(3, DEFAULT_RETRY, () => 1)).toBe(2000);
  expect(backoffDelay(20, DEFAULT_RETRY, () => 1)).toBe(DEFAULT_RETRY.maxDelayMs);
  expect(backoffDelay(3, DEFAULT_RETRY, () => 0.5)).toBe(1000);
});

test('a base URL that is not http(s) is refused at once', () => {
  expect(() => new WeftClient({ baseUrl: 'localhost:8080', apiKey: 'k' })).toThrow(
    /must be an http:\/\/ or https:\/\/ URL/,
  );
});
