import { Writable } from 'node:stream';
import type { Db } from '@weft/db';
import { waitFor } from '@weft/testing';
import type { Express } from 'express';
import jwt from 'jsonwebtoken';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../app';
import { startTestGateway, TEST_ADMIN_TOKEN, TEST_JWT_SECRET, type TestGateway } from '../testing/test-gateway';
import { withTestRoutes } from '../testing/test-routes';
import { generateApiKey } from '@weft/accounts';
import { createAuthenticator } from './authenticator';
import { revocationChannel } from './revocation';

// Authentication end to end: real PostgreSQL and Redis, the real guard, route
// mounting and error handler, through the stand-in api routes of withTestRoutes.

const ORG_B = '0195a3b0-0000-7000-8000-0000000000bb';
const nowSeconds = () => Math.floor(Date.now() / 1000);
const signJwt = (claims: object, secret = TEST_JWT_SECRET, options: jwt.SignOptions = {}) =>
  jwt.sign({ sub: 'user-1', exp: nowSeconds() + 600, ...claims }, secret, { algorithm: 'HS256', ...options });
const admin = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

let gw: TestGateway;
let app: Express;
let org: { id: string; apiKey: string };
let otherOrg: { id: string; apiKey: string };

beforeAll(async () => {
  gw = await startTestGateway();
  app = withTestRoutes(gw);
  org = await gw.createOrg('Auth A');
  otherOrg = await gw.createOrg('Auth B');
});
afterAll(() => gw?.close());

async function keyId(apiKey: string): Promise<string> {
  const prefix = apiKey.split('_')[1]!;
  return (await gw.deps.db.prisma.apiKey.findUniqueOrThrow({ where: { prefix } })).id;
}

function expectRateLimitHeaders(res: request.Response) {
  expect(res.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
}

describe('API keys', () => {
  it('authenticates X-Api-Key and resolves its organization', async () => {
    const res = await request(app).get('/_test/whoami').set('X-Api-Key', org.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ organizationId: org.id, subject: `key:${await keyId(org.apiKey)}`, kind: 'api_key' });
    expectRateLimitHeaders(res);
  });

  it('also accepts the key as a bearer token', async () => {
    const res = await request(app).get('/_test/whoami').set('Authorization', `Bearer ${org.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.body.organizationId).toBe(org.id);
  });

  it('accepts X-Organization-Id naming the key’s own organization, in any case', async () => {
    const res = await request(app)
      .get('/_test/whoami')
      .set('X-Api-Key', org.apiKey)
      .set('X-Organization-Id', org.id.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body.organizationId).toBe(org.id);
  });

  it('answers 403 when X-Organization-Id names another organization', async () => {
    for (const other of [otherOrg.id, ORG_B, 'not-a-uuid']) {
      const res = await request(app).get('/_test/whoami').set('X-Api-Key', org.apiKey).set('X-Organization-Id', other);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: expect.stringMatching(/does not belong/) });
      expectRateLimitHeaders(res);
    }
  });

  it.each([
    ['no credentials', {}],
    ['an empty X-Api-Key', { 'X-Api-Key': '' }],
    ['a malformed key', { 'X-Api-Key': 'weft_abc' }],
    ['an unknown key', { 'X-Api-Key': generateApiKey().key }],
    ['a malformed Authorization header', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer token', { Authorization: 'Bearer ' }],
  ])('answers 401 with %s', async (_name, headers) => {
    const res = await request(app).get('/_test/whoami').set(headers);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String) });
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expectRateLimitHeaders(res);
  });

  it('answers 401 for a known prefix with the wrong secret', async () => {
    const [, prefix] = org.apiKey.split('_');
    const forged = `weft_${prefix}_${generateApiKey().key.split('_')[2]}`;
    const res = await request(app).get('/_test/whoami').set('X-Api-Key', forged);
    expect(res.status).toBe(401);
    // The real key still works (the failed attempt did not poison the cache).
    expect((await request(app).get('/_test/whoami').set('X-Api-Key', org.apiKey)).status).toBe(200);
  });

  it('stops accepting a revoked key at once on the instance that revoked it', async () => {
    const fresh = await gw.createOrg('Revoke here');
    expect((await request(app).get('/_test/whoami').set('X-Api-Key', fresh.apiKey)).status).toBe(200); // cached now
    const revoked = await request(gw.app)
      .delete(`/admin/api-keys/${await keyId(fresh.apiKey)}`)
      .set(admin);
    expect(revoked.status).toBe(204);
    const res = await request(app).get('/_test/whoami').set('X-Api-Key', fresh.apiKey);
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('Unknown or revoked API key');
  });
});

describe('revocation across gateway instances', () => {
  let sibling: TestGateway;
  let siblingApp: Express;
  const channel = () => revocationChannel(gw.config.REDIS_PREFIX);
  const subscribers = async () => {
    const [, count] = (await gw.deps.redis.pubsub('NUMSUB', channel())) as [string, number];
    return Number(count);
  };

  beforeAll(async () => {
    sibling = await gw.startSibling();
    siblingApp = withTestRoutes(sibling);
    // Both instances listen before the tests revoke anything.
    await waitFor('both revocation subscribers', async () => (await subscribers()) >= 2);
  });
  afterAll(() => sibling?.close());

  it('evicts the key on the other instance as soon as it is revoked', async () => {
    const fresh = await gw.createOrg('Revoke there');
    // Warm the sibling's cache: from now on it would trust the key for API_KEY_CACHE_TTL_MS (60 s).
    expect((await request(siblingApp).get('/_test/whoami').set('X-Api-Key', fresh.apiKey)).status).toBe(200);
    expect((await request(siblingApp).get('/_test/whoami').set('X-Api-Key', fresh.apiKey)).status).toBe(200);

    const revokedAt = Date.now();
    expect(
      (
        await request(gw.app)
          .delete(`/admin/api-keys/${await keyId(fresh.apiKey)}`)
          .set(admin)
      ).status,
    ).toBe(204);
    // Pub/sub delivery is asynchronous but takes well under a millisecond locally; allow a little slack.
    await waitFor(
      'the sibling to reject the revoked key',
      async () => (await request(siblingApp).get('/_test/whoami').set('X-Api-Key', fresh.apiKey)).status === 401,
      { timeoutMs: 500, intervalMs: 5 },
    );
    expect(Date.now() - revokedAt).toBeLessThan(500);
  });

  it('forgets its cache when its subscriber reconnects, so a missed revocation cannot linger', async () => {
    const fresh = await gw.createOrg('Missed message');
    expect((await request(siblingApp).get('/_test/whoami').set('X-Api-Key', fresh.apiKey)).status).toBe(200);

    // Cut the subscribers' connections, then revoke behind their back (no message at all).
    const clients = (await gw.deps.redis.client('LIST')) as string;
    const name = `${gw.config.REDIS_PREFIX}:apikey-revoked:subscriber`;
    const ids = clients
      .split('\n')
      .filter((line) => line.includes(` name=${name} `))
      .map((line) => /(?:^|\s)id=(\d+)/.exec(line)![1]!);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    await gw.deps.db.prisma.apiKey.update({
      where: { id: await keyId(fresh.apiKey) },
      data: { revokedAt: new Date() },
    });
    for (const id of ids) await gw.deps.redis.client('KILL', 'ID', id);

    // Once re-subscribed, the sibling has dropped what it trusted while it could not hear revocations.
    await waitFor('subscribers to reconnect', async () => (await subscribers()) >= 2);
    await waitFor(
      'the sibling to reject the key revoked while it was deaf',
      async () => (await request(siblingApp).get('/_test/whoami').set('X-Api-Key', fresh.apiKey)).status === 401,
      { timeoutMs: 2000, intervalMs: 20 },
    );
  });
});

describe('JWT', () => {
  it('authenticates a valid token; the first org is active', async () => {
    const res = await request(app)
      .get('/_test/whoami')
      .set('Authorization', `Bearer ${signJwt({ orgs: [org.id, ORG_B] })}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ organizationId: org.id, subject: 'user:user-1', kind: 'jwt' });
    expectRateLimitHeaders(res);
  });

  it('lets X-Organization-Id select another org from the token', async () => {
    const res = await request(app)
      .get('/_test/whoami')
      .set('Authorization', `Bearer ${signJwt({ orgs: [org.id, otherOrg.id] })}`)
      .set('X-Organization-Id', otherOrg.id);
    expect(res.status).toBe(200);
    expect(res.body.organizationId).toBe(otherOrg.id);
  });

  it('answers 403 when the selected organization does not exist, rather than failing on a write', async () => {
    const selected = await request(app)
      .get('/_test/whoami')
      .set('Authorization', `Bearer ${signJwt({ orgs: [org.id, ORG_B] })}`)
      .set('X-Organization-Id', ORG_B);
    expect(selected.status).toBe(403);
    expect(selected.body).toEqual({ detail: 'The token names an organization that does not exist' });
    const first = await request(app)
      .post('/agents')
      .set('Authorization', `Bearer ${signJwt({ orgs: [ORG_B] })}`)
      .send({ name: 'Nowhere', description: 'x' });
    expect(first.status).toBe(403);
  });

  it('answers 403 when X-Organization-Id is not among the token’s orgs', async () => {
    const res = await request(app)
      .get('/_test/whoami')
      .set('Authorization', `Bearer ${signJwt({ orgs: [org.id] })}`)
      .set('X-Organization-Id', otherOrg.id);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('answers 403 when the token grants no organization', async () => {
    const res = await request(app)
      .get('/_test/whoami')
      .set('Authorization', `Bearer ${signJwt({ orgs: [] })}`);
    expect(res.status).toBe(403);
  });

  const unsigned = (claims: object) =>
    `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({ sub: 'user-1', orgs: [ORG_B], exp: nowSeconds() + 600, ...claims }),
    ).toString('base64url')}.`;

  it.each([
    ['expired', () => signJwt({ orgs: [org.id], exp: nowSeconds() - 5 }), 'Token expired'],
    ['without exp', () => jwt.sign({ sub: 'u', orgs: [org.id] }, TEST_JWT_SECRET), /expiry/],
    ['signed with another secret', () => signJwt({ orgs: [org.id] }, `${TEST_JWT_SECRET}-other`), 'Invalid token'],
    ['with alg none', () => unsigned({}), 'Invalid token'],
    ['with HS384', () => signJwt({ orgs: [org.id] }, TEST_JWT_SECRET, { algorithm: 'HS384' }), 'Invalid token'],
    [
      'tampered with',
      () => signJwt({ orgs: [org.id] }).replace(/\.[^.]+\./, `.${unsigned({}).split('.')[1]}.`),
      'Invalid token',
    ],
    ['that is garbage', () => 'a.b.c', 'Invalid token'],
  ])('answers 401 for a token %s', async (_name, make, detail) => {
    const res = await request(app).get('/_test/whoami').set('Authorization', `Bearer ${make()}`);
    expect(res.status).toBe(401);
    expect(res.body.detail).toEqual(typeof detail === 'string' ? detail : expect.stringMatching(detail));
    expectRateLimitHeaders(res);
  });

  it('rejects every bearer JWT with 401 when JWT_SECRET is unset', async () => {
    const noJwt = await gw.startSibling({ JWT_SECRET: '' });
    try {
      const res = await request(withTestRoutes(noJwt))
        .get('/_test/whoami')
        .set('Authorization', `Bearer ${signJwt({ orgs: [org.id] })}`);
      expect(res.status).toBe(401);
      expect(res.body.detail).toMatch(/disabled/);
      // API keys keep working.
      expect((await request(withTestRoutes(noJwt)).get('/_test/whoami').set('X-Api-Key', org.apiKey)).status).toBe(200);
    } finally {
      await noJwt.close();
    }
  });
});

describe('cost per request', () => {
  it('reads a key from the database once, not once per request', async () => {
    const findUnique = jest.fn((args: { where: { prefix: string } }) =>
      gw.deps.db.prisma.apiKey.findUnique({
        where: args.where,
        select: { id: true, organizationId: true, hash: true, revokedAt: true },
      }),
    );
    const countingDb = { prisma: { apiKey: { findUnique } } } as unknown as Db;
    const authenticator = createAuthenticator({
      db: countingDb,
      redis: gw.deps.redis,
      config: gw.config,
      logger: gw.deps.logger,
    });
    // Going live clears the cache (it may have missed revocations before), which would count as a second read.
    await authenticator.whenLive();
    try {
      const deps = { ...gw.deps, authenticator };
      const counted = withTestRoutes(gw, deps, createApp(deps));
      for (let i = 0; i < 20; i++) {
        expect((await request(counted).get('/_test/whoami').set('X-Api-Key', org.apiKey)).status).toBe(200);
      }
      expect(findUnique).toHaveBeenCalledTimes(1);
    } finally {
      await authenticator.close();
    }
  });
});

describe('logging', () => {
  it('never writes a key, a token or the admin token to the log', async () => {
    let logged = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        logged += String(chunk);
        done();
      },
    });
    const logger = pino({ level: 'trace' }, sink);
    const authenticator = createAuthenticator({ db: gw.deps.db, redis: gw.deps.redis, config: gw.config, logger });
    try {
      const deps = { ...gw.deps, logger, authenticator };
      const logApp = withTestRoutes(gw, deps, createApp(deps));
      const token = signJwt({ orgs: [org.id] });
      const [, prefix] = org.apiKey.split('_');
      const forged = `weft_${prefix}_${generateApiKey().key.split('_')[2]}`;
      const unknown = generateApiKey().key;
      await request(logApp).get('/_test/whoami').set('X-Api-Key', org.apiKey);
      await request(logApp).get('/_test/whoami').set('X-Api-Key', forged);
      await request(logApp).get('/_test/whoami').set('X-Api-Key', unknown);
      await request(logApp).get('/_test/whoami').set('Authorization', `Bearer ${token}`);
      await request(logApp).get('/nowhere').set('X-Api-Key', org.apiKey);
      await request(logApp).post('/admin/organizations').set(admin).send({ name: 'Logged' });
      await request(logApp).post('/admin/organizations').set('Authorization', 'Bearer wrong-admin-token').send({});

      expect(logged).toContain('/admin/organizations'); // the log did capture these requests
      expect(logged).toContain('wrong secret'); // and the forged key attempt, by prefix only
      for (const secret of [
        org.apiKey,
        org.apiKey.split('_')[2]!,
        forged,
        unknown,
        token,
        TEST_ADMIN_TOKEN,
        'wrong-admin-token',
      ]) {
        expect(logged).not.toContain(secret);
      }
    } finally {
      await authenticator.close();
    }
  });
});
