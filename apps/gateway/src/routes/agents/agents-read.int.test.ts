import { AgentPageSchema, AgentSchema, ErrorBody, ValidationErrorBody } from '@weft/contracts';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { postAgent, reviewFlow, splitFlow } from '../../testing/catalog-fixtures';
import { expectSchema } from '../../testing/expect-schema';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const get = (path: string, apiKey: string) => request(gw.app).get(path).set('X-Api-Key', apiKey);

/** A tag no other test uses, to keep lists that span organizations (public) deterministic. */
const uniqueTag = () => `t-${randomUUID().slice(0, 8)}`;

async function listNames(path: string, apiKey: string): Promise<string[]> {
  const res = await get(path, apiKey);
  expect(res.status).toBe(200);
  const page = expectSchema(AgentPageSchema, res.body);
  return page.data.map((a) => a.name);
}

describe('GET /agents: visibility', () => {
  let mine: { apiKey: string };
  let other: { apiKey: string };
  let tag: string;

  beforeAll(async () => {
    mine = await gw.createOrg('mine');
    other = await gw.createOrg('other');
    tag = uniqueTag();
    for (const visibility of ['private', 'shared', 'public'] as const) {
      await postAgent(gw.app, mine.apiKey, { name: `mine-${visibility}`, visibility, tags: [tag] });
      await postAgent(gw.app, other.apiKey, { name: `other-${visibility}`, visibility, tags: [tag] });
    }
    // Another organization's public agent that cannot run yet is not listed to others.
    await postAgent(gw.app, other.apiKey, {
      name: 'other-public-draft',
      visibility: 'public',
      tags: [tag],
      flow: null,
    });
  });

  it("lists the caller organization's own agents of every visibility by default", async () => {
    expect(await listNames(`/agents?tags=${tag}`, mine.apiKey)).toEqual(['mine-public', 'mine-shared', 'mine-private']);
  });

  it("leaves other organizations' shared and public agents out of the default list", async () => {
    expect(await listNames(`/agents?tags=${tag}`, other.apiKey)).toEqual([
      'other-public-draft',
      'other-public',
      'other-shared',
      'other-private',
    ]);
  });

  it('lists an organization whose agents are all public by default (the development catalog)', async () => {
    const publisher = await gw.createOrg('publisher');
    await postAgent(gw.app, publisher.apiKey, { name: 'catalog-a', visibility: 'public' });
    await postAgent(gw.app, publisher.apiKey, { name: 'catalog-b', visibility: 'public' });
    expect(await listNames('/agents', publisher.apiKey)).toEqual(['catalog-b', 'catalog-a']);
  });

  it('answers the same with a trailing slash', async () => {
    expect(await listNames(`/agents/?tags=${tag}`, mine.apiKey)).toEqual([
      'mine-public',
      'mine-shared',
      'mine-private',
    ]);
  });

  it.each([
    ['visibility=private', ['mine-private']],
    ['visibility=shared', ['mine-shared']],
    ['visibility=private&visibility=shared', ['mine-shared', 'mine-private']],
    ['visibility=public', ['other-public', 'mine-public']],
    ['visibility=public&visibility=private', ['other-public', 'mine-public', 'mine-private']],
  ])('%s', async (query, expected) => {
    expect(await listNames(`/agents?tags=${tag}&${query}`, mine.apiKey)).toEqual(expected);
  });

  it('owned=true lists every agent of the caller organization (extension)', async () => {
    expect(await listNames(`/agents?tags=${tag}&owned=true`, mine.apiKey)).toEqual([
      'mine-public',
      'mine-shared',
      'mine-private',
    ]);
    expect(await listNames(`/agents?tags=${tag}&owned=true&visibility=public`, mine.apiKey)).toEqual(['mine-public']);
  });

  it('rejects an unknown visibility with its position', async () => {
    const res = await get('/agents?visibility=private&visibility=everyone', mine.apiKey);
    expect(res.status).toBe(422);
    expectSchema(ValidationErrorBody, res.body);
    expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'visibility', 1], type: 'enum' });
  });

  it('requires credentials', async () => {
    const res = await request(gw.app).get('/agents');
    expect(res.status).toBe(401);
  });
});

describe('GET /agents: filters', () => {
  let org: { apiKey: string };
  let tag: string;

  beforeAll(async () => {
    org = await gw.createOrg();
    tag = uniqueTag();
    await postAgent(gw.app, org.apiKey, { name: 'Blog Writer', tags: [tag, 'text', 'blog'] });
    await postAgent(gw.app, org.apiKey, { name: 'Image cropper', tags: [tag, 'image'] });
    await postAgent(gw.app, org.apiKey, { name: '100% Organic', tags: [tag, 'text'] });
    await postAgent(gw.app, org.apiKey, { name: '1000 words', tags: [tag, 'text'] });
    await postAgent(gw.app, org.apiKey, { name: 'snake_case tool', tags: [tag] });
    await postAgent(gw.app, org.apiKey, { name: 'snakeXcase tool', tags: [tag] });
  });

  it('tags: an agent must carry every given tag', async () => {
    expect(await listNames(`/agents?tags=${tag}&tags=text`, org.apiKey)).toEqual([
      '1000 words',
      '100% Organic',
      'Blog Writer',
    ]);
    expect(await listNames(`/agents?tags=text&tags=blog&tags=${tag}`, org.apiKey)).toEqual(['Blog Writer']);
    expect(await listNames(`/agents?tags=${tag}&tags=image&tags=text`, org.apiKey)).toEqual([]);
  });

  it('search: case-insensitive substring of the name', async () => {
    expect(await listNames(`/agents?tags=${tag}&search=WRITER`, org.apiKey)).toEqual(['Blog Writer']);
    expect(await listNames(`/agents?tags=${tag}&search=image%20CROP`, org.apiKey)).toEqual(['Image cropper']);
  });

  it('search: % and _ match themselves, not any text', async () => {
    expect(await listNames(`/agents?tags=${tag}&search=${encodeURIComponent('100%')}`, org.apiKey)).toEqual([
      '100% Organic',
    ]);
    expect(await listNames(`/agents?tags=${tag}&search=${encodeURIComponent('%')}`, org.apiKey)).toEqual([
      '100% Organic',
    ]);
    expect(await listNames(`/agents?tags=${tag}&search=snake_case`, org.apiKey)).toEqual(['snake_case tool']);
  });

  it('summaries carry inputs and has_human_review, with their defaults', async () => {
    const other = await gw.createOrg();
    await postAgent(gw.app, other.apiKey, { name: 'reviewed', flow: reviewFlow() });
    await postAgent(gw.app, other.apiKey, { name: 'draft', flow: null });
    const res = await get('/agents', other.apiKey);
    const page = expectSchema(AgentPageSchema, res.body);
    expect(page).toEqual({
      data: [
        {
          id: expect.any(String),
          name: 'draft',
          description: 'An agent',
          tags: [],
          estimated_cost: 0,
          visibility: 'private',
          inputs: [],
          has_human_review: false,
        },
        {
          id: expect.any(String),
          name: 'reviewed',
          description: 'An agent',
          tags: [],
          estimated_cost: 0,
          visibility: 'private',
          inputs: [
            { id: 'topic', type: 'text_input', description: 'Topic of the post', required: true },
            { id: 'tone', type: 'text_input', description: 'Tone', required: false },
          ],
          has_human_review: true,
        },
      ],
      has_more: false,
      next_cursor: null,
    });
  });

  it.each([['0'], ['101'], ['abc'], ['1.5'], ['']])('limit=%j is a 422 at query.limit', async (limit) => {
    const res = await get(`/agents?limit=${limit}`, org.apiKey);
    expect(res.status).toBe(422);
    expectSchema(ValidationErrorBody, res.body);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0].loc).toEqual(['query', 'limit']);
  });

  it.each([['1'], ['100']])('limit=%s is accepted', async (limit) => {
    const res = await get(`/agents?limit=${limit}&tags=${tag}`, org.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(limit === '1' ? 1 : 6);
  });

  it('a search longer than 200 characters is a 422 at query.search', async () => {
    const res = await get(`/agents?search=${'x'.repeat(201)}`, org.apiKey);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', 'search']);
  });
});

describe('GET /agents/{agent_id}', () => {
  let mine: { apiKey: string };
  let other: { apiKey: string };

  beforeAll(async () => {
    mine = await gw.createOrg();
    other = await gw.createOrg();
  });

  it('answers the full agent with defaults present', async () => {
    const created = await postAgent(gw.app, mine.apiKey, {
      name: 'Reviewer',
      tags: ['text'],
      estimated_cost: 7,
      flow: reviewFlow(),
    });
    const res = await get(`/agents/${created.id}`, mine.apiKey);
    expect(res.status).toBe(200);
    expect(expectSchema(AgentSchema, res.body)).toEqual({
      id: created.id,
      name: 'Reviewer',
      description: 'An agent',
      tags: ['text'],
      inputs: [
        { id: 'topic', type: 'text_input', description: 'Topic of the post', required: true },
        { id: 'tone', type: 'text_input', description: 'Tone', required: false },
      ],
      outputs: [{ id: 'check', type: 'text', description: 'Approved prompt' }],
      estimated_cost: 7,
      has_human_review: true,
      visibility: 'private',
      version: 1,
    });
    // Defaults are explicit in the response, not left for the client to apply.
    const split = await postAgent(gw.app, mine.apiKey, { flow: splitFlow() });
    const body = (await get(`/agents/${split.id}`, mine.apiKey)).body;
    expect(body.has_human_review).toBe(false);
    expect(body.inputs).toEqual([{ id: 'text', type: 'text_input', description: '', required: true }]);
  });

  it('answers with a trailing slash too', async () => {
    const created = await postAgent(gw.app, mine.apiKey);
    expect((await get(`/agents/${created.id}/`, mine.apiKey)).status).toBe(200);
  });

  it('rejects an id that is not a UUID at path.agent_id', async () => {
    const res = await get('/agents/not-a-uuid', mine.apiKey);
    expect(res.status).toBe(422);
    expectSchema(ValidationErrorBody, res.body);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'agent_id'], input: 'not-a-uuid' })]);
  });

  it("reports another organization's private agent exactly like a missing one", async () => {
    const hidden = await postAgent(gw.app, other.apiKey, { visibility: 'private' });
    const missing = await get(`/agents/${randomUUID()}`, mine.apiKey);
    const foreign = await get(`/agents/${hidden.id}`, mine.apiKey);
    expect(missing.status).toBe(404);
    expect(foreign.status).toBe(404);
    expectSchema(ErrorBody, foreign.body);
    expect(foreign.body).toEqual(missing.body);
    expect(foreign.body).toEqual({ detail: 'Agent not found' });
    expect(foreign.headers['content-length']).toBe(missing.headers['content-length']);
    // The owner, of course, sees it.
    expect((await get(`/agents/${hidden.id}`, other.apiKey)).status).toBe(200);
  });

  it.each(['shared', 'public'] as const)("gets another organization's %s agent by id", async (visibility) => {
    const agent = await postAgent(gw.app, other.apiKey, { visibility, name: `theirs-${visibility}` });
    const res = await get(`/agents/${agent.id}`, mine.apiKey);
    expect(res.status).toBe(200);
    expect(expectSchema(AgentSchema, res.body)).toMatchObject({ id: agent.id, visibility });
  });

  it('answers 422 with the validation body when the agent has no active version', async () => {
    const draft = await postAgent(gw.app, mine.apiKey, { flow: null });
    const res = await get(`/agents/${draft.id}`, mine.apiKey);
    expect(res.status).toBe(422);
    expectSchema(ValidationErrorBody, res.body);
    expect(res.body).toEqual({
      detail: [
        { loc: ['path', 'agent_id'], msg: 'Agent has no active version', type: 'no_active_version', input: draft.id },
      ],
    });
    // Another organization's private draft stays a 404: existence is not revealed.
    const theirs = await postAgent(gw.app, other.apiKey, { flow: null });
    expect((await get(`/agents/${theirs.id}`, mine.apiKey)).status).toBe(404);
  });
});
