import { postAgent, splitFlow } from '../../testing/catalog-fixtures';
import { startRunStack, type RunStack } from '../../testing/test-runs';

// The engine's side of creates written together (ADR 0012): when the database
// refuses one run's data, that run fails alone and its neighbours are
// written. The gateway refuses such data at the door
// (runs-create-unstorable.int.test.ts); here it is given to the engine
// directly, as data the door does not know of would be.

let stack: RunStack;
let org: { id: string; apiKey: string };
let agentId: string;

beforeAll(async () => {
  stack = await startRunStack({}, false);
  org = await stack.gw.createOrg('Poisoned', 1000);
  agentId = (await postAgent(stack.gw.app, org.apiKey, { flow: splitFlow() })).id;
});
afterAll(() => stack.close());

test('120 creates at once, every tenth refused by the database: those are 422, the others are written', async () => {
  const { activeVersionId } = await stack.gw.deps.db.prisma.agent.findUniqueOrThrow({ where: { id: agentId } });
  const outcomes = await Promise.all(
    Array.from({ length: 120 }, (_, i) =>
      stack.gw.deps.engine
        .startRun({
          organizationId: org.id,
          kind: 'agent',
          agentId,
          agentVersionId: activeVersionId!,
          appId: null,
          externalId: `engine-${i}`,
          inputs: [{ id: 'text', value: i % 10 === 9 ? 'bad \ud800' : `good ${i}` }],
          estimatedCost: 1,
        })
        .then(
          (started) => ({ i, status: started.status }),
          (err: { status?: number; issues?: unknown }) => ({ i, status: err.status, issues: err.issues }),
        ),
    ),
  );
  for (const outcome of outcomes) {
    if (outcome.i % 10 === 9) {
      expect(outcome).toEqual({
        i: outcome.i,
        status: 422,
        issues: [
          expect.objectContaining({
            loc: ['body'],
            msg: expect.stringMatching(/^The database refused this run's data: .*surrogate/),
          }),
        ],
      });
    } else {
      expect(outcome).toEqual({ i: outcome.i, status: 'in_progress' });
    }
  }
  const rows = await stack.gw.deps.db.prisma.run.findMany({ where: { externalId: { startsWith: 'engine-' } } });
  expect(rows).toHaveLength(108);
  // Reserved once per run written, none for the refused ones.
  const reserved = await stack.gw.deps.db.prisma.creditLedgerEntry.count({
    where: { runId: { in: rows.map((r) => r.id) }, kind: 'reserve' },
  });
  expect(reserved).toBe(108);
}, 60_000);
