import { RunPageSchema } from '@weft/contracts';
import request from 'supertest';
import { postAgent, reviewFlow, splitFlow } from '../../testing/catalog-fixtures';
import { expectSchema } from '../../testing/expect-schema';
import { startRunStack, type RunStack } from '../../testing/test-runs';

// POST /runs input rules and idempotency, GET /runs listing. No worker runs
// here: only what the gateway decides and writes is under test.

let stack: RunStack;
let apiKey: string;
let orgId: string;
let agentId: string;
let imageAgentId: string;

beforeAll(async () => {
  stack = await startRunStack({}, false);
  ({ apiKey, id: orgId } = await stack.gw.createOrg('Creator', 100));
  agentId = (await postAgent(stack.gw.app, apiKey, { flow: reviewFlow() })).id;
  imageAgentId = (
    await postAgent(stack.gw.app, apiKey, {
      flow: {
        nodes: [
          { id: 'photo', type: 'image_input' },
          { id: 'crop', type: 'change_aspect_ratio', inputs: { image: 'photo' } },
        ],
        outputs: [{ id: 'crop', type: 'images', description: '' }],
      },
    })
  ).id;
});
afterAll(() => stack.close());

const post = (body: object, key = apiKey) => request(stack.gw.app).post('/runs').set('X-Api-Key', key).send(body);

describe('input rules (422, nothing claimed)', () => {
  const cases: [string, object[], (string | number)[], string][] = [
    [
      'unknown input id',
      [
        { id: 'topic', value: 'x' },
        { id: 'nope', value: 'y' },
      ],
      ['body', 'inputs', 1, 'id'],
      'unknown_input',
    ],
    ['missing required input', [{ id: 'tone', value: 'calm' }], ['body', 'inputs'], 'missing'],
    [
      'text given as an object',
      [{ id: 'topic', value: { asset_ids: [] } }],
      ['body', 'inputs', 0, 'value'],
      'value_error',
    ],
    [
      'input given twice',
      [
        { id: 'topic', value: 'a' },
        { id: 'topic', value: 'b' },
      ],
      ['body', 'inputs', 1, 'id'],
      'duplicate_input',
    ],
  ];
  test.each(cases)('%s', async (_name, inputs, loc, type) => {
    const res = await post({ agent_id: agentId, inputs, external_id: 'claim-test' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  });

  test('asset inputs: malformed, missing and inaccessible assets', async () => {
    const shape = await post({ agent_id: imageAgentId, inputs: [{ id: 'photo', value: 'not-an-object' }] });
    expect(shape.status).toBe(422);
    const missing = await post({
      agent_id: imageAgentId,
      inputs: [{ id: 'photo', value: { asset_ids: ['00000000-0000-4000-8000-000000000000'] } }],
    });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({
      loc: ['body', 'inputs', 0, 'value', 'asset_ids', 0],
      type: 'asset_not_found',
    });
  });

  test('external_id over 255 characters and a malformed body are 422', async () => {
    expect(
      (await post({ agent_id: agentId, inputs: [{ id: 'topic', value: 'x' }], external_id: 'x'.repeat(256) })).status,
    ).toBe(422);
    expect((await post({ agent_id: 'nope' })).status).toBe(422);
    expect((await post({ agent_id: agentId, inputs: [{ value: 'x' }] })).status).toBe(422);
  });

  test('a NUL character in any text (which PostgreSQL cannot store) and an empty external_id are 422', async () => {
    const nul = await post({
      agent_id: agentId,
      inputs: [{ id: 'topic', value: 'a\u0000b' }],
      external_id: 'claim-test',
    });
    expect(nul.status).toBe(422);
    expect(nul.body.detail[0]).toMatchObject({ loc: ['body', 'inputs', 0, 'value'], type: 'string_nul' });
    const empty = await post({ agent_id: agentId, inputs: [{ id: 'topic', value: 'x' }], external_id: '' });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0]).toMatchObject({ loc: ['body', 'external_id'], type: 'string_too_short' });
  });

  test('the key of a rejected request is still free', async () => {
    const res = await post({ agent_id: agentId, inputs: [{ id: 'topic', value: 'x' }], external_id: 'claim-test' });
    expect(res.status).toBe(201);
    expect(res.body.external_id).toBe('claim-test');
  });
});

test('unknown or private agents of other organizations are 404', async () => {
  const other = await stack.gw.createOrg('Other');
  expect((await post({ agent_id: agentId, inputs: [{ id: 'topic', value: 'x' }] }, other.apiKey)).status).toBe(404);
  expect((await post({ agent_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
  const draft = await postAgent(stack.gw.app, apiKey, { flow: null });
  expect((await post({ agent_id: draft.id })).status).toBe(422);
});

test('a public agent of another organization runs in the caller organization', async () => {
  const owner = await stack.gw.createOrg('Owner');
  const shared = await postAgent(stack.gw.app, owner.apiKey, { flow: splitFlow(), visibility: 'public' });
  const res = await post({ agent_id: shared.id, inputs: [{ id: 'text', value: 'a' }] });
  expect(res.status).toBe(201);
  const row = await stack.gw.deps.db.prisma.run.findUniqueOrThrow({ where: { id: res.body.id } });
  expect(row.organizationId).toBe(orgId);
});

describe('idempotency', () => {
  test('reusing a key → 409 with existing_id, also across agent and app runs', async () => {
    const first = await post({ agent_id: agentId, inputs: [{ id: 'topic', value: 'x' }], external_id: 'k-1' });
    expect(first.status).toBe(201);
    const second = await post({ agent_id: agentId, inputs: [{ id: 'topic', value: 'y' }], external_id: 'k-1' });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ detail: expect.any(String), existing_id: first.body.id });

    const app = await request(stack.gw.app)
      .post('/apps')
      .set('X-Api-Key', apiKey)
      .send({
        name: 'App',
        description: 'd',
        agent_id: agentId,
        inputs: [{ id: 'topic', type: 'text', name: 'Topic', required: true }],
        outputs: [{ id: 'check', type: 'text', description: '' }],
      });
    const appRun = await request(stack.gw.app)
      .post('/app-runs')
      .set('X-Api-Key', apiKey)
      .send({ app_id: app.body.id, inputs: [{ id: 'topic', value: 'z' }], external_id: 'k-1' });
    expect(appRun.status).toBe(409);
    expect(appRun.body.existing_id).toBe(first.body.id);
  });

  test('two concurrent creates with one key: one 201, one 409', async () => {
    for (let i = 0; i < 5; i++) {
      const body = { agent_id: agentId, inputs: [{ id: 'topic', value: 'x' }], external_id: `race-${i}` };
      const [a, b] = await Promise.all([post(body), post(body)]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      const winner = a.status === 201 ? a : b;
      const loser = a.status === 201 ? b : a;
      expect(loser.body.existing_id).toBe(winner.body.id);
    }
  });
});

describe('creates of one organization written together (engine/src/start-run/create-batches.ts)', () => {
  const createAll = (bodies: object[]) => Promise.all(bodies.map((body) => post(body)));

  test('many at once: written together, each its own run with its own inputs', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `together-${i}`);
    const answers = await createAll(
      keys.map((key) => ({ agent_id: agentId, inputs: [{ id: 'topic', value: key }], external_id: key })),
    );
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 201));
    const rows = await stack.gw.deps.db.prisma.run.findMany({ where: { externalId: { in: keys } } });
    expect(rows.map((r) => r.externalId).sort()).toEqual([...keys].sort());
    expect(rows.every((r) => (r.inputs as { value: string }[])[0]!.value === r.externalId)).toBe(true);
    // Runs written by one statement share its start time: fewer distinct times than runs means batches.
    expect(new Set(rows.map((r) => r.createdAt.getTime())).size).toBeLessThan(keys.length);
  });

  test('a key sent twice among many: one 201 and one 409 naming it, the others 201', async () => {
    const keys = Array.from({ length: 8 }, (_, i) => `twice-${i}`);
    const bodies = [...keys, 'twice-3'].map((key) => ({
      agent_id: agentId,
      inputs: [{ id: 'topic', value: key }],
      external_id: key,
    }));
    const answers = await createAll(bodies);
    expect(answers.map((a) => a.status).sort()).toEqual([...keys.map(() => 201), 409]);
    const twice = answers.filter((_, i) => bodies[i]!.external_id === 'twice-3');
    const winner = twice.find((a) => a.status === 201)!;
    expect(twice.find((a) => a.status === 409)!.body.existing_id).toBe(winner.body.id);
  });

  test('costs that add up past a balance can hold are refused run by run, never a 500', async () => {
    const rich = await stack.gw.createOrg('Rich', 2_000_000_000);
    const agent = await postAgent(stack.gw.app, rich.apiKey, { estimated_cost: 1_500_000_000 });
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        request(stack.gw.app)
          .post('/runs')
          .set('X-Api-Key', rich.apiKey)
          .send({ agent_id: agent.id, inputs: [{ id: 'text', value: 'a' }] }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(answers.map((a) => a.body.status).sort()).toEqual(['failed', 'failed', 'failed', 'in_progress']);
  });

  test('a batch the balance covers is reserved together; one it does not, run by run', async () => {
    const tight = await stack.gw.createOrg('Tight', 10);
    const agent = await postAgent(stack.gw.app, tight.apiKey, { estimated_cost: 2 });
    const send = (n: number) =>
      Promise.all(
        Array.from({ length: n }, () =>
          request(stack.gw.app)
            .post('/runs')
            .set('X-Api-Key', tight.apiKey)
            .send({ agent_id: agent.id, inputs: [{ id: 'text', value: 'a' }] }),
        ),
      );
    // No worker runs here, so nothing is given back: 4 × 2 fit in 10, then one more of the next 3.
    const first = await send(4);
    expect(first.map((a) => a.body.status)).toEqual(['in_progress', 'in_progress', 'in_progress', 'in_progress']);
    const second = await send(3);
    expect(second.map((a) => a.body.status).sort()).toEqual(['failed', 'failed', 'in_progress']);
    expect(second.filter((a) => a.body.status === 'failed').map((a) => a.body.failure_reason)).toEqual([
      'insufficient_credits',
      'insufficient_credits',
    ]);
    const org = await stack.gw.deps.db.prisma.organization.findUniqueOrThrow({ where: { id: tight.id } });
    expect(org.credits).toBe(0);
    const reserved = await stack.gw.deps.db.prisma.creditLedgerEntry.findMany({
      where: { organizationId: tight.id, kind: 'reserve' },
    });
    expect(reserved.map((l) => l.amount)).toEqual([-2, -2, -2, -2, -2]);
  });
});

test('GET /runs lists agent runs only, filtered by status and external_id, paginated', async () => {
  const page = await request(stack.gw.app).get('/runs?limit=2').set('X-Api-Key', apiKey);
  expect(page.status).toBe(200);
  const body = expectSchema(RunPageSchema, page.body);
  expect(body.data).toHaveLength(2);
  expect(body.has_more).toBe(true);
  const next = await request(stack.gw.app).get(`/runs?limit=2&cursor=${body.next_cursor}`).set('X-Api-Key', apiKey);
  expect(next.body.data[0].id).not.toBe(body.data[1]!.id);

  const byKey = await request(stack.gw.app).get('/runs?external_id=k-1').set('X-Api-Key', apiKey);
  expect(byKey.body.data).toHaveLength(1);
  expect(byKey.body.data[0]).toMatchObject({ external_id: 'k-1', status: 'in_progress', awaiting_human_review: false });
  const failed = await request(stack.gw.app).get('/runs?status=failed').set('X-Api-Key', apiKey);
  expect(failed.body.data).toEqual([]);
  expect((await request(stack.gw.app).get('/runs?status=bogus').set('X-Api-Key', apiKey)).status).toBe(422);
  expect((await request(stack.gw.app).get('/app-runs?external_id=k-1').set('X-Api-Key', apiKey)).body.data).toEqual([]);
  const other = await stack.gw.createOrg('Nosy');
  expect((await request(stack.gw.app).get('/runs').set('X-Api-Key', other.apiKey)).body.data).toEqual([]);
  expect((await request(stack.gw.app).get(`/runs/${body.data[0]!.id}`).set('X-Api-Key', other.apiKey)).status).toBe(
    404,
  );
});
