import { AgentSchema, AgentVersionSchema, ValidationErrorBody, type Flow } from '@weft/contracts';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { postAgent, reviewFlow, splitFlow } from '../../testing/catalog-fixtures';
import { expectSchema } from '../../testing/expect-schema';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

let gw: TestGateway;
let org: { id: string; apiKey: string };
let other: { id: string; apiKey: string };
beforeAll(async () => {
  gw = await startTestGateway();
  org = await gw.createOrg();
  other = await gw.createOrg();
});
afterAll(() => gw.close());

const post = (path: string, body: unknown, apiKey = org.apiKey) =>
  request(gw.app)
    .post(path)
    .set('X-Api-Key', apiKey)
    .send(body as object);
const get = (path: string, apiKey = org.apiKey) => request(gw.app).get(path).set('X-Api-Key', apiKey);

describe('POST /agents', () => {
  it('with a flow: 201, version 1 active, readable at once', async () => {
    const res = await post('/agents', {
      name: 'Reviewer',
      description: 'Joins and reviews',
      tags: ['text', 'text', 'review'],
      visibility: 'shared',
      estimated_cost: 3,
      flow: reviewFlow(),
    });
    expect(res.status).toBe(201);
    const agent = expectSchema(AgentSchema, res.body);
    expect(agent).toMatchObject({
      name: 'Reviewer',
      tags: ['text', 'review'],
      visibility: 'shared',
      estimated_cost: 3,
      has_human_review: true,
      version: 1,
    });
    expect(agent.outputs).toEqual([{ id: 'check', type: 'text', description: 'Approved prompt' }]);
    const read = await get(`/agents/${agent.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('defaults: private, cost 0, no tags', async () => {
    const res = await post('/agents', { name: 'Bare', description: '', flow: splitFlow() });
    expect(res.status).toBe(201);
    expect(expectSchema(AgentSchema, res.body)).toMatchObject({ visibility: 'private', estimated_cost: 0, tags: [] });
  });

  it('without a flow: no active version, GET answers 422 until one is published', async () => {
    const res = await post('/agents', { name: 'Draft', description: 'later' });
    expect(res.status).toBe(201);
    const draft = expectSchema(AgentSchema, res.body);
    expect(draft).toMatchObject({ inputs: [], outputs: [], has_human_review: false });
    expect(draft.version).toBeUndefined();
    expect((await get(`/agents/${draft.id}`)).status).toBe(422);

    const published = await post(`/agents/${draft.id}/versions`, { flow: splitFlow() });
    expect(published.status).toBe(201);
    expect(expectSchema(AgentVersionSchema, published.body).version).toBe(1);
    const read = await get(`/agents/${draft.id}`);
    expect(read.status).toBe(200);
    expect(read.body.version).toBe(1);
    expect(read.body.inputs).toEqual([{ id: 'text', type: 'text_input', description: '', required: true }]);
  });

  it.each([
    [{ description: 'x' }, ['body', 'name'], 'missing'],
    [{ name: '', description: 'x' }, ['body', 'name'], 'string_too_short'],
    [{ name: 'x', description: 'x', visibility: 'everyone' }, ['body', 'visibility'], 'enum'],
    [{ name: 'x', description: 'x', estimated_cost: -1 }, ['body', 'estimated_cost'], 'greater_than_equal'],
    [{ name: 'x', description: 'x', flow: { nodes: [] } }, ['body', 'flow', 'nodes'], 'list_too_short'],
  ])('rejects %j at %j', async (body, loc, type) => {
    const res = await post('/agents', body);
    expect(res.status).toBe(422);
    expectSchema(ValidationErrorBody, res.body);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, type })]);
  });
});

describe('flow validation (POST /agents and POST /agents/{id}/versions)', () => {
  const base = (): Flow => splitFlow();
  const cases: [string, (f: Flow) => Flow, (string | number)[], string][] = [
    [
      'duplicate node id',
      (f) => ({ ...f, nodes: [...f.nodes, { id: 'lines', type: 'text_split', inputs: { text: 'text' } }] }),
      ['nodes', 3, 'id'],
      'duplicate_node_id',
    ],
    [
      'unknown node type',
      (f) => ({ ...f, nodes: [f.nodes[0]!, { ...f.nodes[1]!, type: 'teleport' as never }, f.nodes[2]!] }),
      ['nodes', 1, 'type'],
      'enum',
    ],
    [
      'dangling link in a single-id port',
      (f) => ({ ...f, nodes: [f.nodes[0]!, { ...f.nodes[1]!, inputs: { text: 'ghost' } }, f.nodes[2]!] }),
      ['nodes', 1, 'inputs', 'text'],
      'unknown_node',
    ],
    [
      'dangling link in a list port',
      (f) => ({
        ...f,
        nodes: [...f.nodes, { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['text', 'ghost'] } }],
      }),
      ['nodes', 3, 'inputs', 'parts', 1],
      'unknown_node',
    ],
    [
      'self link',
      (f) => ({ ...f, nodes: [...f.nodes, { id: 'me', type: 'prompt_concatenate', inputs: { parts: ['me'] } }] }),
      ['nodes', 3, 'inputs', 'parts', 0],
      'self_link',
    ],
    [
      'cycle',
      (f) => ({
        ...f,
        nodes: [
          ...f.nodes,
          { id: 'x', type: 'prompt_concatenate', inputs: { parts: ['text', 'y'] } },
          { id: 'y', type: 'prompt_concatenate', inputs: { parts: ['x'] } },
        ],
      }),
      ['nodes', 4, 'inputs', 'parts', 0],
      'cycle',
    ],
    [
      'output naming an unknown node',
      (f) => ({ ...f, outputs: [...f.outputs, { id: 'nowhere', type: 'text', description: '' }] }),
      ['outputs', 2, 'id'],
      'unknown_node',
    ],
    [
      'duplicate output id',
      (f) => ({ ...f, outputs: [...f.outputs, { id: 'first', type: 'text', description: '' }] }),
      ['outputs', 2, 'id'],
      'duplicate_output_id',
    ],
    [
      'link to a comment node',
      (f) => ({
        ...f,
        nodes: [
          { id: 'note', type: 'comment' },
          f.nodes[0]!,
          { ...f.nodes[1]!, inputs: { text: 'note' } },
          f.nodes[2]!,
        ],
      }),
      ['nodes', 2, 'inputs', 'text'],
      'inert_node_link',
    ],
  ];

  let target: string;
  beforeAll(async () => {
    target = (await postAgent(gw.app, org.apiKey)).id;
  });

  it.each(cases)('%s → 422 pointing into the flow', async (_name, mutate, loc, type) => {
    const flow = mutate(base());
    for (const [path, prefix] of [
      ['/agents', ['body', 'flow']],
      [`/agents/${target}/versions`, ['body', 'flow']],
    ] as const) {
      const res = await post(path, { name: 'Invalid', description: '', flow });
      expect(res.status).toBe(422);
      expectSchema(ValidationErrorBody, res.body);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: [...prefix, ...loc], type })]);
    }
  });

  it('the cycle error names the path', async () => {
    const flow = cases.find(([name]) => name === 'cycle')![1](base());
    const res = await post('/agents', { name: 'Cyclic', description: '', flow });
    expect(res.body.detail[0]).toMatchObject({ msg: 'Cycle: x → y → x', ctx: { cycle: ['x', 'y', 'x'] } });
  });

  it('nothing is written when a flow is rejected', async () => {
    const before = await gw.deps.db.prisma.agent.count({ where: { organizationId: org.id } });
    await post('/agents', { name: 'Invalid', description: '', flow: cases[0]![1](base()) });
    expect(await gw.deps.db.prisma.agent.count({ where: { organizationId: org.id } })).toBe(before);
    expect((await get(`/agents/${target}`)).body.version).toBe(1);
  });
});

describe('POST /agents/{agent_id}/versions', () => {
  const variant = (n: number): Flow => ({
    ...splitFlow(),
    nodes: splitFlow().nodes.map((node) => (node.id === 'first' ? { ...node, params: { index: n } } : node)),
  });

  it('publishes version 2, which becomes active; version 1 stays stored for runs pinned to it', async () => {
    const agent = await postAgent(gw.app, org.apiKey, { flow: splitFlow() });
    const res = await post(`/agents/${agent.id}/versions`, { flow: reviewFlow() });
    expect(res.status).toBe(201);
    const version = expectSchema(AgentVersionSchema, res.body);
    expect(version.version).toBe(2);
    expect(Date.parse(version.created_at)).not.toBeNaN();
    const read = await get(`/agents/${agent.id}`);
    expect(read.body).toMatchObject({ version: 2, has_human_review: true });
    expect(read.body.inputs.map((i: { id: string }) => i.id)).toEqual(['topic', 'tone']);
    const stored = await gw.deps.db.prisma.agentVersion.findMany({
      where: { agentId: agent.id },
      orderBy: { version: 'asc' },
    });
    expect(stored.map((v) => [v.version, v.hasHumanReview])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it('publishing the active flow again changes nothing and answers 200 with that version', async () => {
    const agent = await postAgent(gw.app, org.apiKey, { flow: reviewFlow() });
    // Same flow with every object's keys in reverse order (jsonb reorders keys anyway): still the same flow.
    const reverseKeys = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reverseKeys)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reverseKeys(x)]),
            )
          : v;
    const again = await post(`/agents/${agent.id}/versions`, { flow: reverseKeys(reviewFlow()) });
    expect(again.status).toBe(200);
    expect(expectSchema(AgentVersionSchema, again.body).version).toBe(1);
    expect(await gw.deps.db.prisma.agentVersion.count({ where: { agentId: agent.id } })).toBe(1);
  });

  it('numbers concurrent publications without gaps or duplicates', async () => {
    const agent = await postAgent(gw.app, org.apiKey, { flow: variant(0) });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post(`/agents/${agent.id}/versions`, { flow: variant(i + 1) })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    // The active version is the last one committed, which holds the highest number.
    expect((await get(`/agents/${agent.id}`)).body.version).toBe(7);
  });

  it('only the owning organization may publish; for others the agent does not exist', async () => {
    for (const visibility of ['private', 'shared', 'public'] as const) {
      const agent = await postAgent(gw.app, org.apiKey, { visibility });
      const res = await post(`/agents/${agent.id}/versions`, { flow: reviewFlow() }, other.apiKey);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Agent not found' });
    }
    const missing = await post(`/agents/${randomUUID()}/versions`, { flow: reviewFlow() });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Agent not found' });
  });

  it('validates the path and the body', async () => {
    const bad = await post('/agents/nope/versions', { flow: reviewFlow() });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'agent_id']);
    const agent = await postAgent(gw.app, org.apiKey);
    const empty = await post(`/agents/${agent.id}/versions`, {});
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'flow'], type: 'missing' })]);
  });
});
