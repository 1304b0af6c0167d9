import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// API keys look like `weft_<prefix>_<secret>`:
// - prefix: 10 base62 characters (~59 bits), public, unique, used to find the row
//   and shown in listings and logs;
// - secret: 43 base62 characters (~256 bits of crypto randomness).
// Base62 keeps the key one "word" (double-click selects it whole) and free of
// characters that need escaping in headers, shells or URLs. Only the SHA-256 of
// the whole key is stored; a fast hash is right here because the secret is
// random and long, so there is nothing for a slow hash to protect against.

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_KEY_PREFIX_LENGTH = 10;
export const API_KEY_SECRET_LENGTH = 43;
const API_KEY_PATTERN = new RegExp(
  `^weft_([0-9A-Za-z]{${API_KEY_PREFIX_LENGTH}})_([0-9A-Za-z]{${API_KEY_SECRET_LENGTH}})$`,
);

/** Uniformly random base62 text: bytes ≥ 248 are rejected so that `byte % 62` has no bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export interface GeneratedApiKey {
  /** The full key: shown to the caller once, never stored. */
  key: string;
  prefix: string;
  /** Hex SHA-256 of `key`: what the database keeps. */
  hash: string;
}

export function generateApiKey(): GeneratedApiKey {
  const prefix = randomBase62(API_KEY_PREFIX_LENGTH);
  const key = `weft_${prefix}_${randomBase62(API_KEY_SECRET_LENGTH)}`;
  return { key, prefix, hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The public prefix of a well-formed key, or undefined when the text cannot be a key. */
export function parseApiKey(text: string): { prefix: string } | undefined {
  const match = API_KEY_PATTERN.exec(text);
  return match ? { prefix: match[1]! } : undefined;
}

/** Constant-time comparison of a presented key with a stored hex hash. */
export function apiKeyMatches(key: string, storedHash: Buffer): boolean {
  const presented = createHash('sha256').update(key).digest();
  return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
}
