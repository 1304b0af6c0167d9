import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';

// Signatures per Standard Webhooks (standardwebhooks): `webhook-signature` is
// `v1,` + base64 of HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`
// under the secret's bytes (base64 after `whsec_`).

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

/**
 * The headers of one attempt. The timestamp is the attempt's own: receivers
 * refuse signatures older than a few minutes (replays), so a retry is signed
 * again at its time, over the same id and the same body.
 */
export function signedHeaders(secret: string, id: string, body: string, at: Date): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}
