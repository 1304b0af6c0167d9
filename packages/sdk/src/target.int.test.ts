import { WeftError } from './errors';
import { resolveTarget } from './target';
import { createAgent, flows, startSdkStack, type SdkStack } from './testing/sdk-stack';

// Finding an agent or app by name on a gateway that several organizations
// share: the caller's own first, then other organizations' public ones.

let sdk: SdkStack;
const agent = ({ id, name }: { id: string; name: string }) => ({ kind: 'agent', id, name });

beforeAll(async () => {
  sdk = await startSdkStack();
});
afterAll(() => sdk?.close());

it("a name finds the caller's own agent before another organization's public one", async () => {
  const [mine, theirs, third, outsider] = [
    sdk.client,
    await sdk.newClient(),
    await sdk.newClient(),
    await sdk.newClient(),
  ];
  const published = await createAgent(theirs, 'Branded product image', flows.split(), 'public');
  // Only another organization has it: its public agent is found.
  expect(await resolveTarget(mine, 'branded PRODUCT image')).toEqual(agent(published));

  const own = await createAgent(mine, 'Branded product image', flows.split());
  await createAgent(third, 'Branded product image', flows.split(), 'public');
  expect(await resolveTarget(mine, 'Branded product image')).toEqual(agent(own));
  const run = await mine.run('Branded product image', { text: 'mine\nnot theirs' });
  expect(run).toMatchObject({ agent_id: own.id, status: 'completed', results: [{ id: 'first', value: 'mine' }] });
  // The first organization's own agent is public too now: still its own, found once.
  const ownPublic = await createAgent(theirs, 'Square crop', flows.square(), 'public');
  expect(await resolveTarget(theirs, 'Square crop')).toEqual(agent(ownPublic));

  // Two in the same tier are ambiguous, and the error says whose each is.
  const err = await resolveTarget(outsider, 'Branded product image').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WeftError);
  expect((err as Error).message).toMatch(/^"Branded product image" names several: /);
  expect((err as Error).message).toContain(`agent ${published.id} (public, another organization)`);
  expect((err as Error).message).toMatch(/agent \S+ \(public, another organization\), agent \S+ \(public/);
  const { data: app } = await mine.api.POST('/apps', {
    body: {
      name: 'Branded product image',
      description: 'x',
      agent_id: own.id,
      inputs: [{ id: 'text', type: 'text', name: 'Text', required: true }],
      outputs: [{ id: 'first', type: 'text', description: 'First' }],
    },
  });
  await expect(resolveTarget(mine, 'Branded product image')).rejects.toThrow(
    `"Branded product image" names several: agent ${own.id} (yours), app ${app!.id} (yours); give the id instead`,
  );
  expect(await resolveTarget(mine, 'Branded product image', 'agent')).toEqual(agent(own));
});
