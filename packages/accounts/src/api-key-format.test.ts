import { createHash } from 'node:crypto';
import {
  API_KEY_PREFIX_LENGTH,
  apiKeyMatches,
  generateApiKey,
  hashApiKey,
  parseApiKey,
  randomBase62,
} from './api-key-format';

describe('API key format', () => {
  it('generates weft_<prefix>_<secret> with a 10-char prefix and 43-char base62 secret', () => {
    const { key, prefix, hash } = generateApiKey();
    expect(key).toMatch(/^weft_[0-9A-Za-z]{10}_[0-9A-Za-z]{43}$/);
    expect(key.split('_')[1]).toBe(prefix);
    expect(prefix).toHaveLength(API_KEY_PREFIX_LENGTH);
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hash).not.toContain(key.split('_')[2]);
  });

  it('never repeats a key or prefix', () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey());
    expect(new Set(keys.map((k) => k.key)).size).toBe(2000);
    expect(new Set(keys.map((k) => k.prefix)).size).toBe(2000);
  });

  it('draws base62 characters without an obvious bias', () => {
    const counts = new Map<string, number>();
    for (const ch of randomBase62(62_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 1000 each; a biased `% 62` over all 256 byte values would put ~1250 on the first 8 characters.
    for (const n of counts.values()) expect(Math.abs(n - 1000)).toBeLessThan(200);
  });

  it('parses only well-formed keys', () => {
    const { key, prefix } = generateApiKey();
    expect(parseApiKey(key)).toEqual({ prefix });
    for (const bad of [
      '',
      'weft_',
      key.slice(0, -1),
      `${key}x`,
      key.replace('weft_', 'wft_'),
      `${key.slice(0, -1)}-`,
      ` ${key}`,
      'weft_abc_def',
    ]) {
      expect(parseApiKey(bad)).toBeUndefined();
    }
  });

  it('matches a key only against its own hash', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(apiKeyMatches(a.key, Buffer.from(a.hash, 'hex'))).toBe(true);
    expect(apiKeyMatches(b.key, Buffer.from(a.hash, 'hex'))).toBe(false);
    expect(apiKeyMatches(a.key, Buffer.alloc(0))).toBe(false);
    expect(hashApiKey(a.key)).toBe(a.hash);
  });
});
