import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { postAgent, splitFlow } from '../../testing/catalog-fixtures';
import { startTestGateway, type TestGateway } from '../../testing/test-gateway';

// Numbers that reach an integer column (credits, costs) or a timer
// (params.timeout_ms) are bounded at the door: 422 naming the number, never a
// 500 at the database or a timer that overflows and fires at once.

let gw: TestGateway;
let org: { id: string; apiKey: string };
beforeAll(async () => {
  gw = await startTestGateway();
  org = await gw.createOrg('Bounds');
});
afterAll(() => gw.close());

/** Sent as is: `1e300` must reach the gateway as the number JSON spells, not as JavaScript would print it. */
const rawPost = (path: string, json: string) =>
  request(gw.app).post(path).set('X-Api-Key', org.apiKey).set('Content-Type', 'application/json').send(json);

const providerFlow = (params: string): string =>
  JSON.stringify({
    nodes: [
      { id: 'topic', type: 'text_input' },
      { id: 'call', type: 'generic_provider', params: { url: 'http://127.0.0.1:9/x' }, inputs: { prompt: 'topic' } },
    ],
    outputs: [{ id: 'call', type: 'text', description: '' }],
  }).replace('"params":{"url":"http://127.0.0.1:9/x"}', `"params":{"url":"http://127.0.0.1:9/x",${params}}`);

describe('estimated_cost fits the integer credits are stored in', () => {
  test.each([
    ['/agents', () => '{"name": "A", "description": "", "estimated_cost": 3000000000}'],
    [
      '/apps',
      (agentId: string) =>
        `{"name": "A", "description": "", "agent_id": "${agentId}", "estimated_cost": 3000000000, "inputs": [{"id": "text", "type": "text", "name": "Text", "required": true}], "outputs": []}`,
    ],
  ])('POST %s with 3000000000: 422 at estimated_cost', async (path, body) => {
    const agent = await postAgent(gw.app, org.apiKey, { flow: splitFlow() });
    const res = await rawPost(path, body(agent.id));
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'estimated_cost'], type: 'less_than_equal', ctx: { max: 2147483647 } }),
    ]);
  });

  test('the largest integer credits hold is accepted', async () => {
    const res = await rawPost('/agents', '{"name": "A", "description": "", "estimated_cost": 2147483647}');
    expect(res.status).toBe(201);
    expect(res.body.estimated_cost).toBe(2147483647);
  });
});

describe('flow params: 422 with a loc into the flow, at creation and at publication', () => {
  const cases: [string, string, string][] = [
    ['cost past an integer', '"cost": 3000000000', 'cost'],
    ['a negative cost', '"cost": -1', 'cost'],
    ['timeout_ms past any timer', '"timeout_ms": 5000000000', 'timeout_ms'],
    ['timeout_ms of 1e300', '"timeout_ms": 1e300', 'timeout_ms'],
    ['timeout_ms not an integer', '"timeout_ms": 1.5', 'timeout_ms'],
    ['timeout_ms of zero', '"timeout_ms": 0', 'timeout_ms'],
  ];
  test.each(cases)('%s', async (_what, params, name) => {
    const loc = ['body', 'flow', 'nodes', 1, 'params', name];
    const created = await rawPost('/agents', `{"name": "A", "description": "", "flow": ${providerFlow(params)}}`);
    expect(created.status).toBe(422);
    expect(created.body.detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
    expect(created.body.detail[0].msg).toMatch(name === 'cost' ? /0 to 2147483647/ : /1 to 3600000/);

    const draft = await postAgent(gw.app, org.apiKey, { flow: null });
    const published = await rawPost(`/agents/${draft.id}/versions`, `{"flow": ${providerFlow(params)}}`);
    expect(published.status).toBe(422);
    expect(published.body.detail).toEqual(created.body.detail);
  });

  test("timeout_ms past its node type's maximum names the maximum", async () => {
    const res = await rawPost(
      '/agents',
      `{"name": "A", "description": "", "flow": ${providerFlow('"timeout_ms": 3600001')}}`,
    );
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'flow', 'nodes', 1, 'params', 'timeout_ms'],
        type: 'less_than_equal',
        ctx: { max: 3_600_000 },
      }),
    ]);
    const quick: Flow = {
      nodes: [
        { id: 'text', type: 'text_input' },
        { id: 'lines', type: 'text_split', params: { timeout_ms: 60_001 }, inputs: { text: 'text' } },
      ],
      outputs: [{ id: 'lines', type: 'data', description: '' }],
    };
    const split = await rawPost('/agents', JSON.stringify({ name: 'A', description: '', flow: quick }));
    expect(split.status).toBe(422);
    expect(split.body.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'flow', 'nodes', 1, 'params', 'timeout_ms'],
        msg: expect.stringContaining('text_split'),
        ctx: { max: 60_000 },
      }),
    ]);
  });

  test('the largest allowed values, and null for the default, are accepted', async () => {
    const max = await rawPost(
      '/agents',
      `{"name": "A", "description": "", "flow": ${providerFlow('"timeout_ms": 3600000, "cost": 2147483647')}}`,
    );
    expect(max.status).toBe(201);
    const defaults = await rawPost(
      '/agents',
      `{"name": "A", "description": "", "flow": ${providerFlow('"timeout_ms": null, "cost": null')}}`,
    );
    expect(defaults.status).toBe(201);
  });
});
