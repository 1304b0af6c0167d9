import { AppRunPageSchema, RunPageSchema } from '@weft/contracts';
import request from 'supertest';
import { postAgent, reviewFlow, splitFlow } from '../../testing/catalog-fixtures';
import { expectSchema } from '../../testing/expect-schema';
import { pollRun, startRunStack, type RunBody, type RunStack } from '../../testing/test-runs';

// GET /runs and /app-runs filtered by what the runs execute and by whether they
// wait for a review (the console's review inbox), combined with the other
// filters and paged; runs execute for real so that the review ones park.

let stack: RunStack;
let apiKey: string;
let reviewAgent: string;
let splitAgent: string;
let reviewApp: string;
let splitApp: string;
/** Newest first, as the lists answer. */
const parkedRuns: string[] = [];
const completedRuns: string[] = [];
const parkedAppRuns: string[] = [];
const completedAppRuns: string[] = [];

const get = (path: string, key = apiKey) => request(stack.gw.app).get(path).set('X-Api-Key', key);

async function postApp(agentId: string, inputs: object[], outputs: object[]): Promise<string> {
  const res = await request(stack.gw.app)
    .post('/apps')
    .set('X-Api-Key', apiKey)
    .send({ name: 'App', description: 'd', agent_id: agentId, inputs, outputs });
  if (res.status !== 201) throw new Error(`POST /apps: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** Starts a run and waits until it has parked on its review or ended. */
async function settledRun(path: '/runs' | '/app-runs', body: object): Promise<RunBody> {
  const res = await request(stack.gw.app).post(path).set('X-Api-Key', apiKey).send(body);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return pollRun(
    stack.gw,
    apiKey,
    `${path}/${res.body.id}`,
    (run) => run.awaiting_human_review === true || run.status !== 'in_progress',
  );
}

const ids = (body: { data: { id: string }[] }) => body.data.map((run) => run.id);

beforeAll(async () => {
  stack = await startRunStack();
  ({ apiKey } = await stack.gw.createOrg('Inbox', 1000));
  reviewAgent = (await postAgent(stack.gw.app, apiKey, { flow: reviewFlow() })).id;
  splitAgent = (await postAgent(stack.gw.app, apiKey, { flow: splitFlow() })).id;
  reviewApp = await postApp(
    reviewAgent,
    [{ id: 'topic', type: 'text', name: 'Topic', required: true }],
    [{ id: 'check', type: 'text', description: 'Approved' }],
  );
  splitApp = await postApp(
    splitAgent,
    [{ id: 'text', type: 'text', name: 'Text', required: true }],
    [{ id: 'first', type: 'text', description: 'First line' }],
  );
  // One after the other, so that creation order is the lists' order.
  const topic = [{ id: 'topic', value: 'tea' }];
  const lines = [{ id: 'text', value: 'a\nb' }];
  for (const [path, body, list] of [
    ['/runs', { agent_id: reviewAgent, inputs: topic }, parkedRuns],
    ['/runs', { agent_id: splitAgent, inputs: lines }, completedRuns],
    ['/app-runs', { app_id: reviewApp, inputs: topic }, parkedAppRuns],
    ['/runs', { agent_id: reviewAgent, inputs: topic }, parkedRuns],
    ['/app-runs', { app_id: splitApp, inputs: lines }, completedAppRuns],
    ['/runs', { agent_id: splitAgent, inputs: lines }, completedRuns],
    ['/runs', { agent_id: reviewAgent, inputs: topic }, parkedRuns],
    ['/app-runs', { app_id: reviewApp, inputs: topic }, parkedAppRuns],
  ] as const) {
    const run = await settledRun(path, body);
    expect(run.status).toBe(list === parkedRuns || list === parkedAppRuns ? 'in_progress' : 'completed');
    list.unshift(run.id);
  }
});
afterAll(() => stack.close());

test('agent_id lists the runs of that agent only, newest first', async () => {
  const review = await get(`/runs?agent_id=${reviewAgent}`);
  expect(review.status).toBe(200);
  expect(ids(expectSchema(RunPageSchema, review.body))).toEqual(parkedRuns);
  expect(ids((await get(`/runs?agent_id=${splitAgent.toUpperCase()}`)).body)).toEqual(completedRuns);
  // App runs execute the agent too, but are not agent runs.
  expect(ids((await get('/runs')).body)).toEqual(expect.not.arrayContaining(parkedAppRuns));
});

test('app_id lists the runs of that app only', async () => {
  const review = await get(`/app-runs?app_id=${reviewApp}`);
  expect(review.status).toBe(200);
  expect(ids(expectSchema(AppRunPageSchema, review.body))).toEqual(parkedAppRuns);
  expect(ids((await get(`/app-runs?app_id=${splitApp}`)).body)).toEqual(completedAppRuns);
});

test('awaiting_human_review=true is the review inbox, false the other runs', async () => {
  const inbox = await get('/runs?awaiting_human_review=true');
  expect(inbox.status).toBe(200);
  expect(inbox.body.data).toEqual(
    parkedRuns.map((id) => expect.objectContaining({ id, awaiting_human_review: true, status: 'in_progress' })),
  );
  expect(ids((await get('/runs?awaiting_human_review=false')).body)).toEqual(completedRuns);
  expect(ids((await get('/app-runs?awaiting_human_review=true')).body)).toEqual(parkedAppRuns);
  expect(ids((await get('/app-runs?awaiting_human_review=false')).body)).toEqual(completedAppRuns);
});

test('filters combine with each other and with status', async () => {
  expect((await get(`/runs?agent_id=${splitAgent}&awaiting_human_review=true`)).body.data).toEqual([]);
  expect(ids((await get(`/runs?agent_id=${reviewAgent}&awaiting_human_review=true&status=in_progress`)).body)).toEqual(
    parkedRuns,
  );
  expect((await get(`/runs?agent_id=${reviewAgent}&status=completed`)).body.data).toEqual([]);
  expect(ids((await get(`/runs?awaiting_human_review=false&status=completed`)).body)).toEqual(completedRuns);
  expect((await get(`/app-runs?app_id=${splitApp}&awaiting_human_review=true`)).body.data).toEqual([]);
});

test('pages of a filtered list hold exactly the filtered runs, each once', async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await get(
      `/runs?agent_id=${reviewAgent}&awaiting_human_review=true&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    seen.push(...ids(res.body));
    expect(res.body.has_more).toBe(res.body.next_cursor !== null);
    cursor = res.body.next_cursor;
    pages += 1;
  } while (cursor);
  expect(pages).toBe(2);
  expect(seen).toEqual(parkedRuns);

  const first = await get(`/app-runs?awaiting_human_review=true&limit=1`);
  expect(ids(first.body)).toEqual(parkedAppRuns.slice(0, 1));
  const second = await get(`/app-runs?awaiting_human_review=true&limit=1&cursor=${first.body.next_cursor}`);
  expect(second.body).toEqual({
    data: [expect.objectContaining({ id: parkedAppRuns[1] })],
    has_more: false,
    next_cursor: null,
  });
});

test('a decided review leaves the inbox once its run goes on', async () => {
  const [newest, ...rest] = parkedRuns;
  const parked = await pollRun(stack.gw, apiKey, `/runs/${newest}`, (run) => run.awaiting_human_review === true);
  const [review] = parked.pending_reviews as { id: string }[];
  const decided = await request(stack.gw.app)
    .post(`/runs/${newest}/reviews/${review!.id}`)
    .set('X-Api-Key', apiKey)
    .send({ decision: 'approve', output: { prompts: ['tea, edited'] } });
  expect(decided.status).toBe(204);
  await pollRun(stack.gw, apiKey, `/runs/${newest}`);
  expect(ids((await get('/runs?awaiting_human_review=true')).body)).toEqual(rest);
  expect(ids((await get('/runs?awaiting_human_review=false')).body)).toEqual([newest, ...completedRuns]);
});

test("another organization's agent or app, or none at all, is an empty page", async () => {
  const other = await stack.gw.createOrg('Elsewhere');
  expect((await get(`/runs?agent_id=${reviewAgent}`, other.apiKey)).body).toEqual({
    data: [],
    has_more: false,
    next_cursor: null,
  });
  expect((await get(`/app-runs?app_id=${reviewApp}`, other.apiKey)).body.data).toEqual([]);
  expect((await get('/runs?awaiting_human_review=true', other.apiKey)).body.data).toEqual([]);
  const nothing = '00000000-0000-4000-8000-000000000000';
  expect((await get(`/runs?agent_id=${nothing}`)).body.data).toEqual([]);
  expect((await get(`/app-runs?app_id=${nothing}`)).body.data).toEqual([]);
});

test.each([
  ['/runs?agent_id=not-a-uuid', 'agent_id'],
  ['/app-runs?app_id=12345', 'app_id'],
  ['/runs?awaiting_human_review=yes', 'awaiting_human_review'],
  ['/app-runs?awaiting_human_review=1', 'awaiting_human_review'],
])('%s is a 422 naming %s', async (path, parameter) => {
  const res = await get(path);
  expect(res.status).toBe(422);
  expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', parameter] })]);
});
