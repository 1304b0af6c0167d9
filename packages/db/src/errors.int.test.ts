import net from 'node:net';
import { createTestEnv, waitFor, type TestEnv } from '@weft/testing';
import { createDb } from './client';
import { isDatabaseUnavailable } from './errors';

// isDatabaseUnavailable against errors real clients raise: a server that is not
// there, a connection the server ends, and statements that are simply wrong.

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.cleanup());

/** A port on which nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('Prisma cannot reach the server: unavailable', async () => {
  const url = new URL(env.databaseUrl);
  url.port = String(await closedPort());
  const db = createDb({ databaseUrl: url.toString(), poolSize: 1 });
  try {
    const err = await db.prisma.organization.count().catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
  } finally {
    await db.close();
  }
});

test('the server ends the connection (a restart): unavailable, through pg and through Prisma', async () => {
  const db = createDb({ databaseUrl: env.databaseUrl, poolSize: 1 });
  const admin = createDb({ databaseUrl: env.databaseUrl, poolSize: 1 });
  try {
    const client = await db.pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const ended = client.query('SELECT pg_sleep(30)').catch((e: unknown) => e);
    await admin.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    expect(isDatabaseUnavailable(await ended)).toBe(true);
    client.release(true);

    const viaPrisma = await db.prisma
      .$transaction(async (tx) => {
        const backend = await tx.$queryRaw<Array<{ pid: number }>>`SELECT pg_backend_pid() AS pid`;
        await admin.pool.query('SELECT pg_terminate_backend($1)', [backend[0]!.pid]);
        await tx.$queryRaw`SELECT 1`;
      })
      .catch((e: unknown) => e);
    expect(isDatabaseUnavailable(viaPrisma)).toBe(true);
  } finally {
    await db.close();
    await admin.close();
  }
});

test('a checked-out client losing its connection between statements does not crash the process', async () => {
  const db = createDb({ databaseUrl: env.databaseUrl, poolSize: 1 });
  const admin = createDb({ databaseUrl: env.databaseUrl, poolSize: 1 });
  try {
    // A transaction between two statements when the database restarts: nothing awaits the client.
    const client = await db.pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await admin.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    const next = await waitFor('the connection to be gone', async () => {
      const err = await client.query('SELECT 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      return err ?? undefined;
    });
    expect(next).toBeInstanceOf(Error);
    client.release(true);
    expect((await db.pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await db.close();
    await admin.close();
  }
});

test('statements that are wrong are not outages', async () => {
  const db = createDb({ databaseUrl: env.databaseUrl, poolSize: 1 });
  try {
    expect(isDatabaseUnavailable(await db.pool.query('SELEC 1').catch((e: unknown) => e))).toBe(false);
    expect(isDatabaseUnavailable(await db.prisma.$queryRaw`SELEC 1`.catch((e: unknown) => e))).toBe(false);
    const missing = await db.prisma.organization
      .update({ where: { id: '00000000-0000-0000-0000-000000000000' }, data: { name: 'x' } })
      .catch((e: unknown) => e);
    expect(isDatabaseUnavailable(missing)).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
  } finally {
    await db.close();
  }
});

describe('a transaction waiting for a connection of a busy pool', () => {
  /** Holds the pool's one connection for `ms`. */
  const hold = (db: ReturnType<typeof createDb>, ms: number) =>
    db.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_sleep(${ms / 1000})`;
    });

  test('waits as long as the pool would (past Prisma’s 2 s), and commits', async () => {
    const db = createDb({ databaseUrl: env.databaseUrl, poolSize: 1, connectTimeoutMs: 10_000 });
    try {
      const held = hold(db, 3000);
      const waited = await db.prisma.$transaction(async (tx) => tx.$queryRaw<Array<{ one: number }>>`SELECT 1 AS one`);
      expect(waited).toEqual([{ one: 1 }]);
      await held;
    } finally {
      await db.close();
    }
  });

  test('past the pool’s bound: unavailable (a 503), not an error of the statement', async () => {
    const db = createDb({ databaseUrl: env.databaseUrl, poolSize: 1, connectTimeoutMs: 500 });
    try {
      const held = hold(db, 2000);
      const err = await db.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 1`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(err)).toBe(true);
      await held;
    } finally {
      await db.close();
    }
  });
});
