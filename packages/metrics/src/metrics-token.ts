import { createHash, timingSafeEqual } from 'node:crypto';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether an Authorization header carries `Bearer <token>`. Both sides are
 * hashed first, so the comparison takes the same time whatever is presented.
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+)$/i.exec(authorization?.trim() ?? '');
  return match !== null && timingSafeEqual(sha256(match[1]!), sha256(token));
}
