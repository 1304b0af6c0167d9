import { createTestEnv, waitFor, type TestEnv } from '@weft/testing';
import { Redis } from 'ioredis';
import type { ExecuteNodeJob } from '@weft/queue';
import { executeNodeJobId } from '@weft/queue';
import { OrgSlots, readSlotBacklog } from './org-slots';

// The slots of organizations on a real Redis: who is let through, in which
// order, and what a repeat, a cancel or a lapsed lease does.

let env: TestEnv;
let redis: Redis;

beforeAll(async () => {
  env = await createTestEnv();
  redis = new Redis(env.redisUrl);
});
afterAll(async () => {
  redis.disconnect();
  await env.cleanup();
});

const ORG = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
let seq = 0;
const job = (organizationId = ORG): ExecuteNodeJob => ({
  runId: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
  nodeId: 'call',
  attempt: 0,
  nodeType: 'generic_provider',
  organizationId,
});
const ids = (jobs: ExecuteNodeJob[]) => jobs.map((j) => executeNodeJobId(j));

function slotsOf(name: string, maxPerOrg: number, leaseMs?: number): OrgSlots {
  return new OrgSlots(redis, `${env.redisPrefix}:${name}`, { maxPerOrg, ...(leaseMs ? { leaseMs } : {}) });
}

test('up to the cap go through at once; the rest wait their turn, oldest first, one per finished job', async () => {
  const slots = slotsOf('order', 2);
  const jobs = [job(), job(), job(), job()];
  expect(await slots.admit(ORG, jobs)).toEqual(jobs.slice(0, 2));
  expect(await slots.isWaiting(ORG, executeNodeJobId(jobs[2]!))).toBe(true);
  // Another organization is not held back by this one's backlog.
  const other = job(OTHER);
  expect(await slots.admit(OTHER, [other])).toEqual([other]);

  expect(await slots.release(ORG, ids([jobs[1]!]))).toEqual([jobs[2]]);
  expect(await slots.release(ORG, ids([jobs[0]!]))).toEqual([jobs[3]]);
  expect(await slots.release(ORG, ids(jobs.slice(2)))).toEqual([]);
});

test('admitting again is harmless: a waiting job keeps its place, a job holding a slot is answered to enqueue again', async () => {
  const slots = slotsOf('repeat', 1);
  const [first, second, third] = [job(), job(), job()];
  expect(await slots.admit(ORG, [first!, second!, third!])).toEqual([first]);
  expect(await slots.admit(ORG, [third!, second!])).toEqual([]);
  expect(await slots.admit(ORG, [first!])).toEqual([first]);
  expect(await slots.release(ORG, ids([first!]))).toEqual([second]);
});

test('releasing a waiting job (its run canceled) takes it out of the line', async () => {
  const slots = slotsOf('cancel', 1);
  const [first, second, third] = [job(), job(), job()];
  await slots.admit(ORG, [first!, second!, third!]);
  expect(await slots.release(ORG, ids([second!]))).toEqual([]);
  expect(await slots.isWaiting(ORG, executeNodeJobId(second!))).toBe(false);
  expect(await slots.release(ORG, ids([first!]))).toEqual([third]);
});

test('a lease nobody renews lapses and its slot goes to the next job; a renewed one holds', async () => {
  const slots = slotsOf('lease', 2, 600);
  const [renewed, abandoned, next] = [job(), job(), job()];
  expect(await slots.admit(ORG, [renewed!, abandoned!, next!])).toEqual([renewed, abandoned]);
  // Renewing `renewed` as its worker would, while `abandoned`'s lease lapses.
  const freed = await waitFor(
    "the abandoned job's lease to lapse",
    async () => {
      await slots.renew([{ orgId: ORG, jobId: executeNodeJobId(renewed!) }]);
      const ready = await slots.admit(ORG, []);
      return ready.length > 0 ? ready : undefined;
    },
    { timeoutMs: 5_000, intervalMs: 100 },
  );
  expect(freed).toEqual([next]);
  expect(await slots.admit(ORG, [job()])).toEqual([]);
});

test('the backlog of every organization is counted in one place, and empties as slots free up', async () => {
  const slots = slotsOf('backlog', 1);
  const prefix = `${env.redisPrefix}:backlog`;
  expect(await readSlotBacklog(redis, prefix)).toEqual({ nodes: 0, organizations: 0 });
  const mine = [job(), job(), job()];
  const theirs = [job(OTHER), job(OTHER)];
  await slots.admit(ORG, mine);
  await slots.admit(OTHER, theirs);
  expect(await readSlotBacklog(redis, prefix)).toEqual({ nodes: 3, organizations: 2 });

  await slots.release(ORG, ids([mine[0]!]));
  expect(await readSlotBacklog(redis, prefix)).toEqual({ nodes: 2, organizations: 2 });
  // A waiting job that is canceled leaves the backlog too.
  await slots.release(OTHER, ids([theirs[1]!]));
  expect(await readSlotBacklog(redis, prefix)).toEqual({ nodes: 1, organizations: 1 });
  await slots.release(ORG, ids(mine.slice(1)));
  expect(await readSlotBacklog(redis, prefix)).toEqual({ nodes: 0, organizations: 0 });
});

test("the backlog counts both lanes' waiting nodes, and an organization waiting in both once", async () => {
  const prefix = `${env.redisPrefix}:lanes`;
  const provider = new OrgSlots(redis, prefix, { maxPerOrg: 1 }, 'org-slots');
  const media = new OrgSlots(redis, prefix, { maxPerOrg: 1 }, 'org-slots:media');
  await provider.admit(ORG, [job(), job()]);
  await media.admit(ORG, [job(), job(), job()]);
  await media.admit(OTHER, [job(OTHER), job(OTHER)]);
  expect(await readSlotBacklog(redis, prefix)).toEqual({ nodes: 4, organizations: 2 });
});
