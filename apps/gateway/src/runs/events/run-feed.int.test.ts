import http, { type ServerResponse } from 'node:http';
import { waitFor } from '@weft/testing';
import pino from 'pino';
import request from 'supertest';
import { postAgent, reviewFlow } from '../../testing/catalog-fixtures';
import { baseUrl, openEventStream, type EventStreamClient } from '../../testing/event-stream';
import { pollRun, startRunStack, type RunStack } from '../../testing/test-runs';
import { agentRunKind } from '../agent-run-kind';
import { RunFeed } from './run-feed';
import { RunStream } from './run-stream';

// One moment the hub's open() leaves to timing, played step by step: a stream
// still opening when its run changes. Its own first read can be older than the
// change, which the feed has meanwhile read and sent to the run's other
// streams; the stream must still be sent it. (Run by bench:events on a text
// flow whose runs end as their clients connect, about 3 streams in 1,000 were
// left open without `end` after their run had ended.)

let stack: RunStack;
let org: { id: string; apiKey: string };
let server: http.Server;
const responses: ServerResponse[] = [];
const clients: EventStreamClient[] = [];

beforeAll(async () => {
  stack = await startRunStack();
  org = await stack.gw.createOrg('Feed', 1000);
  // Hands each response to the test, which makes it a stream of the feed.
  server = http.createServer((_req, res) => responses.push(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const client of clients) client.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await stack.close();
});

/** A client connected to the test's server, and the response it is answered on. */
async function connect(): Promise<{ res: ServerResponse; client: Promise<EventStreamClient> }> {
  const before = responses.length;
  const client = openEventStream(baseUrl(server), '/events').then((c) => {
    clients.push(c);
    return c;
  });
  const res = await waitFor('the request', () => responses[before]);
  return { res, client };
}

test('a stream whose first read is older than a change its feed already sent the other streams gets that change', async () => {
  const agent = await postAgent(stack.gw.app, org.apiKey, { flow: reviewFlow() });
  const created = await request(stack.gw.app)
    .post('/runs')
    .set('X-Api-Key', org.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'tea' }] });
  const runId = created.body.id as string;
  const parked = await pollRun(stack.gw, org.apiKey, `/runs/${runId}`, (r) => r.awaiting_human_review === true);

  const { deps } = stack.gw;
  const feed = new RunFeed(
    runId,
    { pool: deps.db.pool, versions: deps.engine.versions, logger: pino({ level: 'silent' }) },
    () => undefined,
  );
  // The first stream: open, as the hub opens one.
  const one = await connect();
  const first = new RunStream(one.res, undefined, feed);
  feed.streams.add(first);
  first.start((await feed.read(agentRunKind, org.id, first.since))!);
  feed.opened(first, agentRunKind, org.id);
  const firstClient = await one.client;

  // The second registers and reads the run, waiting for its review...
  const two = await connect();
  const second = new RunStream(two.res, undefined, feed);
  feed.streams.add(second);
  const older = (await feed.read(agentRunKind, org.id, second.since))!;

  // ...the review is decided and the run completes; the change reaches the feed, which sends it to the first.
  const review = (parked.pending_reviews as { id: string }[])[0]!;
  const decided = await request(stack.gw.app)
    .post(`/runs/${runId}/reviews/${review.id}`)
    .set('X-Api-Key', org.apiKey)
    .send({ decision: 'approve', output: { prompts: ['coffee'] } });
  expect(decided.status).toBe(204);
  feed.refresh();
  expect(await firstClient.finished()).toBe('ended');

  // Only then does the second send its first events, from its older read.
  second.start(older);
  feed.opened(second, agentRunKind, org.id);
  const secondClient = await two.client;
  expect(secondClient.events[0]).toMatchObject({ event: 'run', data: { awaiting_human_review: true } });
  expect(await secondClient.finished()).toBe('ended');
  expect(secondClient.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
});
