import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newSigningSecret, signedHeaders } from './signing';

test('a signature follows the Standard Webhooks recipe and verifies with the secret alone', () => {
  const secret = newSigningSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  const body = JSON.stringify({ type: 'run.completed', timestamp: '2026-11-26T18:30:00.000Z', data: { id: 'r' } });
  const at = new Date();
  const headers = signedHeaders(secret, 'delivery-1', body, at);
  const seconds = String(Math.floor(at.getTime() / 1000));
  expect(headers['webhook-timestamp']).toBe(seconds);
  // The recipe of docs/api.md#verifying-a-delivery, by hand.
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = crypto.createHmac('sha256', key).update(`delivery-1.${seconds}.${body}`).digest('base64');
  expect(headers['webhook-signature']).toBe(`v1,${mac}`);
  expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
  expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
});

test('every secret is new', () => {
  expect(new Set(Array.from({ length: 100 }, newSigningSecret)).size).toBe(100);
});
