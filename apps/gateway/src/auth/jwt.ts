import { isUuid } from '@weft/contracts';
import { UnauthorizedError } from '@weft/errors';
import jwt from 'jsonwebtoken';

// Bearer JWTs (docs/api.md#jwt): HS256 signed with JWT_SECRET, claims `sub`
// (user id), `orgs` (organization ids the user belongs to) and `exp`.

export interface JwtIdentity {
  sub: string;
  /** Lower-cased organization uuids, in the token's order; the first is the default. */
  orgs: string[];
}

export function verifyJwt(token: string, secret: string): JwtIdentity {
  let payload: string | jwt.JwtPayload;
  try {
    // Pinning the algorithm rejects `none` and any attempt to pass a public key off as an HMAC secret.
    payload = jwt.verify(token, secret, { algorithms: ['HS256'] });
  } catch (err) {
    if (err instanceof jwt.TokenExpiredError) throw new UnauthorizedError('Token expired');
    throw new UnauthorizedError('Invalid token');
  }
  if (typeof payload !== 'object' || payload === null) throw new UnauthorizedError('Invalid token claims');
  // jsonwebtoken checks `exp` only when present; a token that never expires is not accepted.
  if (typeof payload.exp !== 'number') throw new UnauthorizedError('Token has no expiry (exp)');
  if (typeof payload.sub !== 'string' || payload.sub === '') throw new UnauthorizedError('Token has no subject (sub)');
  const orgs: unknown = payload.orgs;
  if (!Array.isArray(orgs) || !orgs.every(isUuid)) {
    throw new UnauthorizedError('Token claim orgs must be an array of organization ids');
  }
  return { sub: payload.sub, orgs: orgs.map((o) => o.toLowerCase()) };
}
