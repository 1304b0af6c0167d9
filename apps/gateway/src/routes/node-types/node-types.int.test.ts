import { NODE_TYPES, NodeTypeInfoSchema, NodeTypeListSchema, type Flow } from '@weft/contracts';
import request from 'supertest';
import { expectSchema } from '../../testing/expect-schema';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

let gw: TestGateway;
let org: { id: string; apiKey: string };
beforeAll(async () => {
  gw = await startTestGateway();
  org = await gw.createOrg('Node types');
});
afterAll(() => gw.close());

const get = (path: string, key = org.apiKey) => request(gw.app).get(path).set('X-Api-Key', key);

describe('GET /node-types', () => {
  test('lists all 55 types with ports, params schema, output and lane', async () => {
    const res = await get('/node-types');
    expect(res.status).toBe(200);
    const { data: items } = expectSchema(NodeTypeListSchema, res.body);
    expect(items.map((t) => t.type)).toEqual([...NODE_TYPES]);
    const logo = items.find((t) => t.type === 'add_logo')!;
    expect(logo.inputs.map((p) => [p.name, p.accepts, p.required])).toEqual([
      ['image', ['images', 'videos'], true],
      ['logo', ['images'], true],
    ]);
    expect(logo.lane).toBe('heavy');
    expect(logo.params_schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { position: { default: 'bottom-right' }, scale: { default: 0.2 } },
    });
    const llm = items.find((t) => t.type === 'llm')!;
    expect(llm).toMatchObject({ serving: 'provider', lane: 'light', route: null });
    expect(items.find((t) => t.type === 'comment')).toMatchObject({ inputs: [], output: { kinds: [] } });
  });

  test('every type that executes lists what it can produce; same_as picks one of those', async () => {
    const { data: items } = expectSchema(NodeTypeListSchema, (await get('/node-types')).body);
    const outputs = new Map(items.map((t) => [t.type, t.output]));
    for (const { type, output } of items) {
      if (type === 'comment' || type === 'group') continue;
      expect([type, output.kinds.length > 0]).toEqual([type, true]);
    }
    expect(Object.fromEntries(items.filter((t) => t.output.same_as).map((t) => [t.type, t.output]))).toEqual({
      add_logo: { kinds: ['images', 'videos'], same_as: 'image' },
      human_review: { kinds: ['text', 'images', 'videos', 'files', 'audio', 'data'], same_as: 'value' },
      list_selector: { kinds: ['text', 'images', 'videos', 'files', 'audio', 'data'], same_as: 'list' },
      rename_asset: { kinds: ['images', 'videos', 'files', 'audio'], same_as: 'assets' },
      router: { kinds: ['text', 'images', 'videos', 'files', 'audio', 'data'], same_as: 'value' },
      trim_speed: { kinds: ['videos', 'audio'], same_as: 'media' },
    });
    // Each same_as port takes every kind the output lists (list_selector's text or data: an element of a list).
    for (const { type, inputs, output } of items.filter((t) => t.output.same_as)) {
      const port = inputs.find((p) => p.name === output.same_as)!;
      expect([type, output.kinds.filter((k) => !port.accepts.includes(k))]).toEqual([type, []]);
    }
    const one = await get('/node-types/add_logo');
    expect(expectSchema(NodeTypeInfoSchema, one.body).output).toEqual(outputs.get('add_logo'));
  });

  test('reads one type; an unknown one is 404; no key is 401', async () => {
    const res = await get('/node-types/video_concat');
    expect(res.status).toBe(200);
    expect(expectSchema(NodeTypeInfoSchema, res.body)).toMatchObject({
      type: 'video_concat',
      inputs: [{ name: 'videos', accepts: ['videos'], many: true }],
      output: { kinds: ['videos'], same_as: null },
    });
    expect((await get('/node-types/teleport')).status).toBe(404);
    expect((await request(gw.app).get('/node-types')).status).toBe(401);
  });
});

describe('flows are checked against the node types when published', () => {
  const publish = (flow: Flow) =>
    request(gw.app).post('/agents').set('X-Api-Key', org.apiKey).send({ name: 'Checked', description: '', flow });

  const locs = (body: { detail: { loc: unknown[]; type: string }[] }) => body.detail.map((d) => [d.loc, d.type]);

  test('a param that fails its schema: 422 with loc into the node', async () => {
    const res = await publish({
      nodes: [
        { id: 'photo', type: 'image_input' },
        { id: 'logo', type: 'image_input' },
        { id: 'brand', type: 'add_logo', inputs: { image: 'photo', logo: 'logo' }, params: { position: 'middle' } },
      ],
      outputs: [{ id: 'brand', type: 'images', description: '' }],
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([[['body', 'flow', 'nodes', 2, 'params', 'position'], 'enum']]);
    expect(res.body.detail[0].msg).toMatch(/bottom-right/);
  });

  test('an unknown param is refused, naming it', async () => {
    const res = await publish({
      nodes: [
        { id: 't', type: 'text_input' },
        { id: 's', type: 'text_split', inputs: { text: 't' }, params: { separatr: ',' } },
      ],
      outputs: [],
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([[['body', 'flow', 'nodes', 1, 'params'], 'extra_forbidden']]);
    expect(res.body.detail[0].msg).toContain('separatr');
  });

  test('unknown and missing ports, a port fed the wrong kind, several nodes on a single port', async () => {
    const res = await publish({
      nodes: [
        { id: 'topic', type: 'text_input' },
        { id: 'photo', type: 'image_input' },
        { id: 'crop', type: 'change_aspect_ratio', inputs: { image: 'topic', picture: 'photo' } },
        { id: 'logo', type: 'add_logo', inputs: { image: ['photo', 'crop'] } },
      ],
      outputs: [],
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([
      [['body', 'flow', 'nodes', 2, 'inputs', 'picture'], 'unknown_port'],
      [['body', 'flow', 'nodes', 2, 'inputs', 'image'], 'port_kind'],
      [['body', 'flow', 'nodes', 3, 'inputs', 'image'], 'too_many_links'],
      [['body', 'flow', 'nodes', 3, 'inputs', 'logo'], 'missing'],
    ]);
    const kind = res.body.detail[1].msg as string;
    expect(kind).toBe("Input 'image' of a change_aspect_ratio node takes images; 'topic' (text_input) produces text");
  });

  test('a pass-through node carries the kind of what feeds it', async () => {
    const base = (feed: string): Flow => ({
      nodes: [
        { id: 'topic', type: 'text_input' },
        { id: 'photo', type: 'image_input' },
        { id: 'check', type: 'human_review', inputs: { value: feed } },
        { id: 'crop', type: 'change_aspect_ratio', inputs: { image: 'check' } },
      ],
      outputs: [],
    });
    expect((await publish(base('photo'))).status).toBe(201);
    const res = await publish(base('topic'));
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([[['body', 'flow', 'nodes', 3, 'inputs', 'image'], 'port_kind']]);
  });
});

describe("an agent's estimated_cost", () => {
  const flow = (costs: number[]): Flow => ({
    nodes: [
      { id: 'topic', type: 'text_input' },
      ...costs.map((cost, i) => ({
        id: `call${i}`,
        type: 'generic_provider' as const,
        params: { url: 'http://127.0.0.1:9/x', cost },
        inputs: { prompt: 'topic' },
      })),
    ],
    outputs: [],
  });
  const create = (body: object) =>
    request(gw.app)
      .post('/agents')
      .set('X-Api-Key', org.apiKey)
      .send({ name: 'Costed', description: '', ...body });

  test("defaults to the sum of its nodes' estimates; the author's figure wins", async () => {
    expect((await create({ flow: flow([2, 5]) })).body.estimated_cost).toBe(7);
    expect((await create({ flow: flow([2, 5]), estimated_cost: 1 })).body.estimated_cost).toBe(1);
    expect((await create({})).body.estimated_cost).toBe(0);
  });
});
