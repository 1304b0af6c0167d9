import crypto from 'node:crypto';

// CREDENTIALS_KEY: the keys organizations' provider secrets are sealed with,
// `<version>:<base64 of 32 bytes>` entries separated by commas. The highest
// version seals; every listed version opens, so a key is rotated by adding a
// new version, re-sealing (POST /admin/credentials/reseal), then removing the
// old one.

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export interface Sealed {
  keyVersion: number;
  /** nonce ‖ ciphertext ‖ tag */
  sealed: Buffer;
}

export interface Keyring {
  /** The version new secrets are sealed with. */
  readonly current: number;
  seal(plaintext: string, context: string): Sealed;
  /** Throws when the version is not on the ring or the bytes were altered. */
  open(sealed: Sealed, context: string): string;
}

/** Parses CREDENTIALS_KEY; throws an Error saying what is wrong. */
export function parseKeyring(text: string): Keyring {
  const keys = new Map<number, Buffer>();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const match = /^(\d{1,6}):([A-Za-z0-9+/=_-]+)$/.exec(entry);
    if (!match) throw new Error('CREDENTIALS_KEY: entries are <version>:<base64 of 32 random bytes>');
    const version = Number(match[1]);
    const key = Buffer.from(match[2]!, 'base64');
    if (key.length !== 32) throw new Error(`CREDENTIALS_KEY: key ${version} is ${key.length} bytes, not 32`);
    if (keys.has(version)) throw new Error(`CREDENTIALS_KEY: version ${version} is listed twice`);
    keys.set(version, key);
  }
  if (keys.size === 0) throw new Error('CREDENTIALS_KEY: no key');
  const current = Math.max(...keys.keys());
  return {
    current,
    seal(plaintext, context) {
      const nonce = crypto.randomBytes(NONCE_BYTES);
      const cipher = crypto.createCipheriv('aes-256-gcm', keys.get(current)!, nonce);
      // The context (the credential's id and organization) binds a sealed secret to its row.
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { keyVersion: current, sealed: Buffer.concat([nonce, body, cipher.getAuthTag()]) };
    },
    open({ keyVersion, sealed }, context) {
      const key = keys.get(keyVersion);
      if (!key) throw new Error(`credential sealed with key version ${keyVersion}, not in CREDENTIALS_KEY`);
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

/** A new CREDENTIALS_KEY entry (`weft` prints one for operators; the dev launcher makes one). */
export function newKeyEntry(version = 1): string {
  return `${version}:${crypto.randomBytes(32).toString('base64')}`;
}
