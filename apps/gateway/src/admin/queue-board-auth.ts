import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

// The queue dashboard is a browser page, and a browser cannot be made to send
// `Authorization: Bearer`: besides the admin API's Bearer token, HTTP Basic
// with the admin token as the password (any user name) is accepted, and a 401
// carries `WWW-Authenticate: Basic` so that the browser asks for it.

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The token a request presents: `Bearer <token>`, or the password of `Basic base64(user:password)`. */
export function presentedToken(authorization: string | undefined): string | undefined {
  const match = /^(Bearer|Basic) +(\S+)$/i.exec(authorization?.trim() ?? '');
  if (!match) return undefined;
  if (match[1]!.toLowerCase() === 'bearer') return match[2];
  const decoded = Buffer.from(match[2]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

export function requireAdminToken(adminToken: string): RequestHandler {
  // Hashed once, and the presented token hashed too: constant time whatever its length.
  const expected = sha256(adminToken);
  return (req, res, next) => {
    const token = presentedToken(req.headers.authorization);
    if (token !== undefined && timingSafeEqual(sha256(token), expected)) {
      next();
      return;
    }
    res.setHeader('WWW-Authenticate', 'Basic realm="weft", charset="UTF-8"');
    res.status(401).json({ detail: 'Missing or wrong admin token' });
  };
}
