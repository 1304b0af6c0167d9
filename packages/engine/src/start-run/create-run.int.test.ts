import { loadAgent, type StoredAgent } from '@weft/catalog';
import type { Flow } from '@weft/contracts';
import { NotFoundError, ValidationError } from '@weft/errors';
import pino from 'pino';
import { createEngine, type CreateRunInput } from '../index';
import { createOrganization, publishAgent, type PublishedAgent } from '../testing/catalog-rows';
import { startEngineTestStack, type EngineTestStack } from '../testing/engine-test-stack';
import { balanceOf, storedRun } from '../testing/stored-rows';

// Creating a run of what a request names: the target resolved (through the
// agent source the engine was given, or the catalog), the inputs checked
// against it, and a refused create writing and claiming nothing.

let stack: EngineTestStack;

beforeAll(async () => {
  stack = await startEngineTestStack();
});
afterAll(() => stack.close());

const flow: Flow = {
  nodes: [
    { id: 'topic', type: 'text_input' },
    { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['topic'] } },
  ],
  outputs: [{ id: 'join', type: 'text', description: 'Joined' }],
};

const createOf = (agent: PublishedAgent, more: Partial<CreateRunInput> = {}): CreateRunInput => ({
  organizationId: agent.organizationId,
  kind: 'agent',
  catalogId: agent.agentId,
  externalId: undefined,
  inputs: [{ id: 'topic', value: 'tea' }],
  ...more,
});

test('an agent run is pinned to the active version, its estimated cost reserved, and says what it resolved', async () => {
  const org = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, org, flow, 30);

  const created = await stack.engine.createRun(createOf(agent));

  expect(created).toMatchObject({
    status: 'in_progress',
    agentVersion: 1,
    catalogId: agent.agentId,
    agentId: agent.agentId,
    agentVersionId: agent.versionId,
    appId: null,
  });
  expect(await storedRun(stack.db, created.id)).toMatchObject({ status: 'in_progress', reserved_credits: 30 });
});

test("another organization's private agent is a 404, and nothing is written", async () => {
  const owner = await createOrganization(stack.db, 100);
  const caller = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, owner, flow, 30);

  await expect(stack.engine.createRun(createOf(agent, { organizationId: caller }))).rejects.toThrow(
    new NotFoundError('Agent'),
  );
  expect(await balanceOf(stack.db, caller)).toEqual({ credits: 100, pending: 0, total: 100 });
});

test('inputs that break their rules are a 422 naming each, and the external_id stays free', async () => {
  const org = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, org, flow, 30);

  const refused = await stack.engine
    .createRun(createOf(agent, { externalId: 'kept-free', inputs: [{ id: 'colour', value: 'red' }] }))
    .catch((err: unknown) => err);

  expect(refused).toBeInstanceOf(ValidationError);
  expect((refused as ValidationError).issues).toEqual([
    { loc: ['body', 'inputs', 0, 'id'], msg: "Unknown input 'colour'", type: 'unknown_input', input: 'colour' },
    { loc: ['body', 'inputs'], msg: "Input 'topic' is required", type: 'missing', ctx: { id: 'topic' } },
  ]);
  expect(await balanceOf(stack.db, org)).toEqual({ credits: 100, pending: 0, total: 100 });
  await expect(stack.engine.createRun(createOf(agent, { externalId: 'kept-free' }))).resolves.toMatchObject({
    status: 'in_progress',
  });
});

test('agents come from the source the engine was given, not from a read of their own', async () => {
  const org = await createOrganization(stack.db, 100);
  const agent = await publishAgent(stack.db, org, flow, 30);
  const loaded = await loadAgent(stack.db, agent.agentId);
  const stored = (loaded as { value: StoredAgent }).value;
  const asked: string[] = [];
  const engine = createEngine({
    db: stack.db,
    queues: stack.queues,
    publisher: stack.redis,
    redisPrefix: stack.env.redisPrefix,
    logger: pino({ level: 'silent' }),
    agents: {
      stored: (orgId, agentId) => {
        asked.push(`${orgId}/${agentId}`);
        return Promise.resolve(stored);
      },
    },
  });

  await expect(engine.createRun(createOf(agent))).resolves.toMatchObject({ agentVersionId: agent.versionId });
  expect(asked).toEqual([`${org}/${agent.agentId}`]);
});
