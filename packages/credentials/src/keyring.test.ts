import { newKeyEntry, parseKeyring } from './keyring';

test('a sealed secret opens under its context only, and never holds the plaintext', () => {
  const ring = parseKeyring(newKeyEntry(1));
  const sealed = ring.seal('sk-live-abcdef', 'org-1/cred-1');
  expect(sealed.keyVersion).toBe(1);
  expect(sealed.sealed.toString('latin1')).not.toContain('sk-live');
  expect(ring.open(sealed, 'org-1/cred-1')).toBe('sk-live-abcdef');
  expect(() => ring.open(sealed, 'org-2/cred-1')).toThrow();
  const altered = Buffer.from(sealed.sealed);
  altered[14] = altered[14]! ^ 1;
  expect(() => ring.open({ ...sealed, sealed: altered }, 'org-1/cred-1')).toThrow();
});

test('rotation: the highest version seals, older listed versions still open', () => {
  const v1 = newKeyEntry(1);
  const old = parseKeyring(v1).seal('secret', 'c');
  const ring = parseKeyring(`${v1},${newKeyEntry(2)}`);
  expect(ring.current).toBe(2);
  expect(ring.open(old, 'c')).toBe('secret');
  expect(ring.seal('x', 'c').keyVersion).toBe(2);
  expect(() => parseKeyring(newKeyEntry(2)).open(old, 'c')).toThrow('key version 1, not in CREDENTIALS_KEY');
});

test.each([
  ['', 'no key'],
  ['v1:abc', 'entries are <version>:<base64'],
  ['1:AAAA', 'key 1 is 3 bytes, not 32'],
])('CREDENTIALS_KEY %j is refused: %s', (text, message) => {
  expect(() => parseKeyring(text)).toThrow(message);
});
