import jwt from 'jsonwebtoken';
import { verifyJwt } from './jwt';

const SECRET = 'unit-test-secret-0123456789abcdef0123456789';
const ORG = '0195a3b0-0000-7000-8000-000000000001';
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

const sign = (claims: object, secret = SECRET, options: jwt.SignOptions = {}) =>
  jwt.sign(claims, secret, { algorithm: 'HS256', ...options });

describe('verifyJwt', () => {
  it('returns sub and the lower-cased orgs of a valid token', () => {
    const token = sign({ sub: 'user-1', orgs: [ORG.toUpperCase()], exp: inAnHour() });
    expect(verifyJwt(token, SECRET)).toEqual({ sub: 'user-1', orgs: [ORG] });
  });

  it.each([
    ['expired', () => sign({ sub: 'u', orgs: [ORG], exp: Math.floor(Date.now() / 1000) - 10 }), 'Token expired'],
    ['without exp', () => sign({ sub: 'u', orgs: [ORG] }), 'Token has no expiry (exp)'],
    [
      'signed with another secret',
      () => sign({ sub: 'u', orgs: [ORG], exp: inAnHour() }, `${SECRET}x`),
      'Invalid token',
    ],
    [
      'signed with HS512',
      () => sign({ sub: 'u', orgs: [ORG], exp: inAnHour() }, SECRET, { algorithm: 'HS512' }),
      'Invalid token',
    ],
    [
      'with alg none',
      () =>
        `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(
          JSON.stringify({ sub: 'u', orgs: [ORG], exp: inAnHour() }),
        ).toString('base64url')}.`,
      'Invalid token',
    ],
    ['without sub', () => sign({ orgs: [ORG], exp: inAnHour() }), 'Token has no subject (sub)'],
    ['with orgs not a list', () => sign({ sub: 'u', orgs: ORG, exp: inAnHour() }), /orgs/],
    ['with an org that is not a uuid', () => sign({ sub: 'u', orgs: ['acme'], exp: inAnHour() }), /orgs/],
    ['that is not a JWT', () => 'not.a.jwt', 'Invalid token'],
  ])('rejects a token %s with 401', (_name, make, message) => {
    let caught: unknown;
    try {
      verifyJwt(make(), SECRET);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ status: 401 });
    expect((caught as Error).message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
  });
});
