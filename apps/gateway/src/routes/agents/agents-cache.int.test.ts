import request from 'supertest';
import { postAgent, reviewFlow } from '../../testing/catalog-fixtures';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

// GET /agents/{id} is served from each instance's memory (catalog/agent-catalog.ts).
// What users depend on: a change made through one instance is seen at once
// through every other, and access rules still apply to the cached row.

let gw: TestGateway;
let sibling: TestGateway;
let owner: { id: string; apiKey: string };
let stranger: { id: string; apiKey: string };

beforeAll(async () => {
  gw = await startTestGateway();
  sibling = await gw.startSibling();
  await Promise.all([gw.deps.agents.whenLive(), sibling.deps.agents.whenLive()]);
  owner = await gw.createOrg('Cache owner');
  stranger = await gw.createOrg('Cache stranger');
});
afterAll(async () => {
  await sibling.close();
  await gw.close();
});

const getAgent = (app: TestGateway['app'], apiKey: string, id: string) =>
  request(app).get(`/agents/${id}`).set('X-Api-Key', apiKey);

it('serves repeated reads from memory: a row changed behind its back is not read again', async () => {
  const agent = await postAgent(gw.app, owner.apiKey, { name: 'Cached' });
  expect((await getAgent(gw.app, owner.apiKey, agent.id)).body.name).toBe('Cached');
  // Not through the API, so nothing tells the cache.
  await gw.deps.db.prisma.agent.update({ where: { id: agent.id }, data: { name: 'Renamed in SQL' } });
  expect((await getAgent(gw.app, owner.apiKey, agent.id)).body.name).toBe('Cached');
});

it('shows a version published through one instance at once through another', async () => {
  const agent = await postAgent(gw.app, owner.apiKey, { name: 'Versioned' });
  const before = await getAgent(sibling.app, owner.apiKey, agent.id);
  expect(before.body).toMatchObject({ version: 1, has_human_review: false });

  const published = await request(gw.app)
    .post(`/agents/${agent.id}/versions`)
    .set('X-Api-Key', owner.apiKey)
    .send({ flow: reviewFlow() });
  expect(published.status).toBe(201);

  // The publishing instance has forgotten the row before it answered; the
  // other hears it through Redis within moments.
  expect((await getAgent(gw.app, owner.apiKey, agent.id)).body).toMatchObject({ version: 2, has_human_review: true });
  const deadline = Date.now() + 1000;
  let seen = before.body.version;
  while (seen !== 2 && Date.now() < deadline) {
    seen = (await getAgent(sibling.app, owner.apiKey, agent.id)).body.version;
  }
  expect(seen).toBe(2);
});

it('applies access rules to the cached row for every caller', async () => {
  const secret = await postAgent(gw.app, owner.apiKey, { name: 'Private', visibility: 'private' });
  expect((await getAgent(gw.app, owner.apiKey, secret.id)).status).toBe(200);
  const hidden = await getAgent(gw.app, stranger.apiKey, secret.id);
  const missing = await getAgent(gw.app, stranger.apiKey, '00000000-0000-4000-8000-000000000000');
  expect(hidden.status).toBe(404);
  expect(hidden.body).toEqual(missing.body);

  const shared = await postAgent(gw.app, owner.apiKey, { name: 'Shared', visibility: 'shared' });
  expect((await getAgent(gw.app, owner.apiKey, shared.id)).status).toBe(200);
  expect((await getAgent(gw.app, stranger.apiKey, shared.id)).status).toBe(200);
});

it('answers 422 for an agent without an active version, and 200 once one is published', async () => {
  const draft = await postAgent(gw.app, owner.apiKey, { name: 'Draft', flow: null });
  expect((await getAgent(sibling.app, owner.apiKey, draft.id)).status).toBe(422);
  await request(gw.app)
    .post(`/agents/${draft.id}/versions`)
    .set('X-Api-Key', owner.apiKey)
    .send({ flow: reviewFlow() });
  const deadline = Date.now() + 1000;
  let status = 422;
  while (status !== 200 && Date.now() < deadline) status = (await getAgent(sibling.app, owner.apiKey, draft.id)).status;
  expect(status).toBe(200);
});

it('pins runs created through another instance to a version published a moment ago', async () => {
  const agent = await postAgent(gw.app, owner.apiKey, { name: 'Pinned' });
  const createRun = (app: TestGateway['app'], value: string) =>
    request(app)
      .post('/runs')
      .set('X-Api-Key', owner.apiKey)
      .send({ agent_id: agent.id, inputs: [{ id: 'text', value }] });
  // The sibling caches the agent (and its active version) by creating a run.
  expect((await createRun(sibling.app, 'a\nb')).body).toMatchObject({ status: 'in_progress', agent_version: 1 });

  const next = await request(gw.app)
    .post(`/agents/${agent.id}/versions`)
    .set('X-Api-Key', owner.apiKey)
    .send({ flow: reviewFlow() });
  expect(next.status).toBe(201);
  // Version 2's inputs are topic and tone: once the sibling hears of it, the old input is refused.
  const deadline = Date.now() + 1000;
  let res = await createRun(sibling.app, 'c');
  while (res.status === 201 && Date.now() < deadline) res = await createRun(sibling.app, 'c');
  expect(res.status).toBe(422);
  const pinned = await request(sibling.app)
    .post('/runs')
    .set('X-Api-Key', owner.apiKey)
    .send({ agent_id: agent.id, inputs: [{ id: 'topic', value: 'cats' }] });
  expect(pinned.body).toMatchObject({ status: 'in_progress', agent_version: 2 });
});
