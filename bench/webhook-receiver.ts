import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// bench:events' webhook receiver, in a process of its own: a node:http
// server on loopback answering 204 at once, counting requests and distinct
// `webhook-id`s (a duplicate is a delivery sent twice) with the times of the
// first and last arrival. Given secrets, every BENCH_VERIFY_EVERY-th
// request's Standard Webhooks signature is checked against them (any of them:
// a request does not say which endpoint it is for).
// The parent drives it over IPC: `reset` starts a count, `report` answers it.

interface Sample {
  headers: Record<string, string>;
  body: string;
}

let secrets: Buffer[] = [];
const verifyEvery = Number(process.env.BENCH_VERIFY_EVERY ?? 50);

let requests = 0;
let ids = new Set<string>();
let first = 0;
let last = 0;
let bodyBytes = 0;
let verified = 0;
let badSignatures = 0;
let sample: Sample | undefined;

function signatureValid(id: string, timestamp: string, body: string, header: string): boolean {
  const offered = header.split(' ').map((s) => Buffer.from(s.replace(/^v1,/, ''), 'base64'));
  return secrets.some((key) => {
    const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
    return offered.some((o) => o.length === expected.length && crypto.timingSafeEqual(o, expected));
  });
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(204).end();
    const now = performance.now();
    if (requests === 0) first = now;
    last = now;
    requests++;
    const body = Buffer.concat(chunks);
    bodyBytes += body.length;
    const id = String(req.headers['webhook-id'] ?? '');
    ids.add(id);
    if (secrets.length > 0 && requests % verifyEvery === 1) {
      verified++;
      const text = body.toString('utf8');
      const ok = signatureValid(
        id,
        String(req.headers['webhook-timestamp']),
        text,
        String(req.headers['webhook-signature'] ?? ''),
      );
      if (!ok) badSignatures++;
      sample ??= {
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        },
        body: text,
      };
    }
  });
});

export interface ReceiverReport {
  requests: number;
  distinct: number;
  /** Arrival of the first and last request counted, ms on this process's clock. */
  first: number;
  last: number;
  bodyBytes: number;
  verified: number;
  badSignatures: number;
  /** One signed delivery as received, for the bare loop to send alike. */
  sample: Sample | undefined;
}

/** `reset` starts a count, checking signatures under `secrets` (`whsec_...`; none: no check). */
process.on('message', (m: { reset?: { secrets: string[] }; report?: true }) => {
  if (m.reset) {
    requests = 0;
    ids = new Set();
    first = last = bodyBytes = verified = badSignatures = 0;
    secrets = m.reset.secrets.map((s) => Buffer.from(s.replace(/^whsec_/, ''), 'base64'));
  }
  if (m.report) {
    const report: ReceiverReport = {
      requests,
      distinct: ids.size,
      first,
      last,
      bodyBytes,
      verified,
      badSignatures,
      sample,
    };
    process.send?.({ report });
  }
});
process.on('disconnect', () => process.exit(0));

server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
