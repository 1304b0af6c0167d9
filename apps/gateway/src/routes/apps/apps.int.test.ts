import { AppPageSchema, AppSchema, ErrorBody, ValidationErrorBody, type Flow } from '@weft/contracts';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { postAgent } from '../../testing/catalog-fixtures';
import { expectSchema } from '../../testing/expect-schema';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

let gw: TestGateway;
let mine: { id: string; apiKey: string };
let other: { id: string; apiKey: string };

/** Inputs: topic (text, required), tone (text, optional), photo (image, required). */
const flow = (): Flow => ({
  nodes: [
    { id: 'topic', type: 'text_input', description: 'Topic' },
    { id: 'tone', type: 'text_input', required: false },
    { id: 'photo', type: 'image_input' },
    { id: 'note', type: 'comment' },
    { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['topic', 'tone'] } },
    { id: 'crop', type: 'change_aspect_ratio', params: { aspect_ratio: '1:1' }, inputs: { image: 'photo' } },
  ],
  outputs: [
    { id: 'join', type: 'text', description: 'Prompt' },
    { id: 'crop', type: 'images', description: 'Square photo' },
  ],
});

const appBody = (agentId: string, overrides: Record<string, unknown> = {}) => ({
  name: 'Square post',
  description: 'Crop a photo and write a caption',
  agent_id: agentId,
  inputs: [
    { id: 'topic', type: 'text', name: 'Topic', required: true, options: ['cats', 'dogs'], max_selections: 1 },
    { id: 'photo', type: 'image', name: 'Photo', required: true, min_selections: 1, max_selections: 1 },
  ],
  outputs: [{ id: 'crop', type: 'images', description: 'The square photo' }],
  ...overrides,
});

const post = (body: unknown, apiKey = mine.apiKey) =>
  request(gw.app)
    .post('/apps')
    .set('X-Api-Key', apiKey)
    .send(body as object);
const get = (path: string, apiKey = mine.apiKey) => request(gw.app).get(path).set('X-Api-Key', apiKey);

let agentId: string;
beforeAll(async () => {
  gw = await startTestGateway();
  mine = await gw.createOrg('mine');
  other = await gw.createOrg('other');
  agentId = (await postAgent(gw.app, mine.apiKey, { flow: flow(), estimated_cost: 12 })).id;
});
afterAll(() => gw.close());

async function createApp(apiKey: string, overrides: Record<string, unknown> = {}, agent = agentId) {
  const res = await post(appBody(agent, overrides), apiKey);
  if (res.status !== 201) throw new Error(`POST /apps: ${res.status} ${JSON.stringify(res.body)}`);
  return expectSchema(AppSchema, res.body);
}

describe('POST /apps', () => {
  it('creates an app; estimated_cost defaults to the agent; absent optional fields are null', async () => {
    const res = await post(appBody(agentId));
    expect(res.status).toBe(201);
    const app = expectSchema(AppSchema, res.body);
    expect(app).toEqual({
      id: expect.any(String),
      name: 'Square post',
      description: 'Crop a photo and write a caption',
      avatar_url: null,
      visibility: 'private',
      inputs: [
        {
          id: 'topic',
          type: 'text',
          name: 'Topic',
          required: true,
          options: ['cats', 'dogs'],
          min_selections: null,
          max_selections: 1,
        },
        {
          id: 'photo',
          type: 'image',
          name: 'Photo',
          required: true,
          options: null,
          min_selections: 1,
          max_selections: 1,
        },
      ],
      outputs: [{ id: 'crop', type: 'images', description: 'The square photo' }],
      estimated_cost: 12,
      agent_id: agentId,
    });
    const read = await get(`/apps/${app.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('keeps an explicit estimated_cost, avatar_url and visibility', async () => {
    const app = await createApp(mine.apiKey, {
      estimated_cost: 0,
      avatar_url: 'https://cdn.example.com/a.png',
      visibility: 'workspace',
    });
    expect(app).toMatchObject({
      estimated_cost: 0,
      avatar_url: 'https://cdn.example.com/a.png',
      visibility: 'workspace',
    });
  });

  it('may expose an internal node as an output', async () => {
    const app = await createApp(mine.apiKey, { outputs: [{ id: 'join', type: 'text', description: 'Caption' }] });
    expect(app.outputs).toEqual([{ id: 'join', type: 'text', description: 'Caption' }]);
  });

  const invalid: [string, Record<string, unknown>, (string | number)[], string][] = [
    [
      'input id that is not an input node',
      { inputs: [...appBody('').inputs, { id: 'join', type: 'text', name: 'Join', required: false }] },
      ['body', 'inputs', 2, 'id'],
      'unknown_input',
    ],
    [
      'input id that is no node at all',
      { inputs: [...appBody('').inputs, { id: 'ghost', type: 'image', name: 'Ghost', required: true }] },
      ['body', 'inputs', 2, 'id'],
      'unknown_input',
    ],
    [
      'input type not matching the node',
      { inputs: [appBody('').inputs[0], { id: 'photo', type: 'video', name: 'Photo', required: true }] },
      ['body', 'inputs', 1, 'type'],
      'input_type_mismatch',
    ],
    [
      'duplicate input id',
      { inputs: [...appBody('').inputs, { id: 'topic', type: 'text', name: 'Again', required: true }] },
      ['body', 'inputs', 2, 'id'],
      'duplicate_input_id',
    ],
    [
      'min_selections above max_selections',
      {
        inputs: [
          appBody('').inputs[0],
          { id: 'photo', type: 'image', name: 'Photo', required: true, min_selections: 3, max_selections: 2 },
        ],
      },
      ['body', 'inputs', 1, 'min_selections'],
      'value_error',
    ],
    [
      'a required input of the agent left out',
      { inputs: [appBody('').inputs[0]] },
      ['body', 'inputs'],
      'missing_input',
    ],
    [
      'output id that is not a node',
      {
        outputs: [
          { id: 'crop', type: 'images', description: '' },
          { id: 'ghost', type: 'text', description: '' },
        ],
      },
      ['body', 'outputs', 1, 'id'],
      'unknown_node',
    ],
    [
      'output on a comment node',
      { outputs: [{ id: 'note', type: 'text', description: '' }] },
      ['body', 'outputs', 0, 'id'],
      'unknown_node',
    ],
    [
      'duplicate output id',
      {
        outputs: [
          { id: 'crop', type: 'images', description: '' },
          { id: 'crop', type: 'images', description: '' },
        ],
      },
      ['body', 'outputs', 1, 'id'],
      'duplicate_output_id',
    ],
    [
      'unknown input type',
      { inputs: [{ id: 'topic', type: 'txt', name: 'T', required: true }] },
      ['body', 'inputs', 0, 'type'],
      'enum',
    ],
    ['avatar_url with a script scheme', { avatar_url: 'javascript:alert(1)' }, ['body', 'avatar_url'], 'url_parsing'],
  ];

  it.each(invalid)('rejects %s at the offending entry', async (_name, overrides, loc, type) => {
    const res = await post(appBody(agentId, overrides));
    expect(res.status).toBe(422);
    expectSchema(ValidationErrorBody, res.body);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, type })]);
  });

  it('an agent that is missing or private to another organization is a 422 at body.agent_id, the same for both', async () => {
    const theirs = await postAgent(gw.app, other.apiKey, { flow: flow(), visibility: 'private' });
    const foreign = await post(appBody(theirs.id));
    const missing = await post(appBody(randomUUID()));
    expect(foreign.status).toBe(422);
    expectSchema(ValidationErrorBody, foreign.body);
    expect(foreign.body.detail).toEqual([
      { loc: ['body', 'agent_id'], msg: 'Agent not found', type: 'not_found', input: theirs.id },
    ]);
    expect({ ...missing.body.detail[0], input: undefined }).toEqual({ ...foreign.body.detail[0], input: undefined });
  });

  it.each(['shared', 'public'] as const)("may be built on another organization's %s agent", async (visibility) => {
    const theirs = await postAgent(gw.app, other.apiKey, { flow: flow(), visibility, estimated_cost: 4 });
    const app = await createApp(mine.apiKey, {}, theirs.id);
    expect(app).toMatchObject({ agent_id: theirs.id, estimated_cost: 4 });
  });

  it('an agent without an active version is a 422 at body.agent_id', async () => {
    const draft = await postAgent(gw.app, mine.apiKey, { flow: null });
    const res = await post(appBody(draft.id));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'agent_id'], type: 'no_active_version' }),
    ]);
  });
});

describe('GET /apps and GET /apps/{app_id}', () => {
  let a: { id: string; apiKey: string };
  let b: { id: string; apiKey: string };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    a = await gw.createOrg('a');
    b = await gw.createOrg('b');
    for (const [org, label] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      const agent = await postAgent(gw.app, org.apiKey, { flow: flow(), visibility: 'shared' });
      for (const visibility of ['private', 'workspace', 'shared', 'public'] as const) {
        const name = `${label}-${visibility} 100%`;
        ids[`${label}-${visibility}`] = (await createApp(org.apiKey, { name, visibility }, agent.id)).id;
      }
    }
  });

  async function names(path: string, apiKey = a.apiKey) {
    const res = await get(path, apiKey);
    expect(res.status).toBe(200);
    return expectSchema(AppPageSchema, res.body).data.map((x) => x.name.replace(' 100%', ''));
  }

  it("lists the caller organization's own apps of every visibility by default, with or without a trailing slash", async () => {
    const own = ['a-public', 'a-shared', 'a-workspace', 'a-private'];
    expect(await names('/apps')).toEqual(own);
    expect(await names('/apps/')).toEqual(own);
    // Another organization's shared and public apps are not in it.
    expect(await names('/apps', b.apiKey)).toEqual(['b-public', 'b-shared', 'b-workspace', 'b-private']);
  });

  it('filters by visibility; public spans organizations', async () => {
    expect(await names('/apps?visibility=workspace')).toEqual(['a-workspace']);
    expect(await names('/apps?visibility=public&search=100%25')).toEqual(['b-public', 'a-public']);
    expect(await names('/apps?owned=true')).toEqual(['a-public', 'a-shared', 'a-workspace', 'a-private']);
  });

  it('search is case-insensitive and literal', async () => {
    expect(await names('/apps?search=A-SHARED')).toEqual(['a-shared']);
    expect(await names('/apps?search=a_shared')).toEqual([]);
  });

  it('summaries carry inputs', async () => {
    const res = await get('/apps?visibility=workspace', a.apiKey);
    const [summary] = expectSchema(AppPageSchema, res.body).data;
    expect(summary).toEqual({
      id: ids['a-workspace'],
      name: 'a-workspace 100%',
      description: 'Crop a photo and write a caption',
      avatar_url: null,
      visibility: 'workspace',
      estimated_cost: 0,
      inputs: expect.arrayContaining([expect.objectContaining({ id: 'photo', type: 'image', required: true })]),
    });
  });

  it('gets shared and public apps of another organization by id', async () => {
    for (const label of ['b-shared', 'b-public']) {
      const res = await get(`/apps/${ids[label]}`, a.apiKey);
      expect(res.status).toBe(200);
      expectSchema(AppSchema, res.body);
    }
  });

  it('reports private and workspace apps of another organization exactly like missing ones', async () => {
    const missing = await get(`/apps/${randomUUID()}`, a.apiKey);
    expect(missing.status).toBe(404);
    expectSchema(ErrorBody, missing.body);
    expect(missing.body).toEqual({ detail: 'App not found' });
    for (const label of ['b-private', 'b-workspace']) {
      const res = await get(`/apps/${ids[label]}`, a.apiKey);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(missing.body);
      // The owner sees it.
      expect((await get(`/apps/${ids[label]}`, b.apiKey)).status).toBe(200);
    }
  });

  it('rejects a non-UUID id and bad limits', async () => {
    const bad = await get('/apps/123', a.apiKey);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'app_id']);
    for (const limit of ['0', '101', 'abc']) {
      const res = await get(`/apps?limit=${limit}`, a.apiKey);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'limit']);
    }
  });
});
