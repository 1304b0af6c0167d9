import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { hostAllowed, refusedAddress, type AllowList } from './address-policy';

/** A destination the address rules refuse; the message says which address and why. */
export class RefusedDestinationError extends Error {}

export interface OutboundResponse {
  status: number;
  body: Buffer;
}

export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST';
  body?: Buffer;
  headers?: Record<string, string>;
  allow: AllowList;
  signal: AbortSignal;
  maxRedirects?: number;
  maxBodyBytes?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * An HTTP(S) request that never reaches a refused address. Names are resolved
 * by a lookup that checks every address it returns, and the connection uses
 * exactly those addresses, so a DNS answer cannot change between the check and
 * the connect (rebinding). Redirects are followed by hand, each hop checked
 * the same way.
 */
export async function guardedRequest(req: OutboundRequest): Promise<OutboundResponse> {
  let url = new URL(req.url);
  let method = req.method;
  let body = req.body;
  for (let hop = 0; ; hop++) {
    const res = await once({ ...req, url: url.toString(), method, body });
    if (!REDIRECTS.has(res.status) || !res.location) return res;
    if (hop >= (req.maxRedirects ?? 3)) return res;
    url = new URL(res.location, url);
    // 307/308 repeat the request; the others turn into a GET without a body, as browsers do.
    if (res.status !== 307 && res.status !== 308) {
      method = 'GET';
      body = undefined;
    }
  }
}

export function checkedLookup(allow: AllowList, who = 'nodes'): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      for (const { address } of addresses) {
        const why = refusedAddress(allow, address);
        if (why) {
          return callback(
            new RefusedDestinationError(`${hostname} resolves to ${address}, ${why}, which ${who} may not reach`),
            '',
            0,
          );
        }
      }
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      } else {
        callback(null, addresses[0]!.address, addresses[0]!.family);
      }
    });
  };
}

function once(req: OutboundRequest & { method: string }): Promise<OutboundResponse & { location?: string }> {
  const url = new URL(req.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new RefusedDestinationError(`Only http and https URLs may be called, not ${url.protocol}`));
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowedByName = hostAllowed(req.allow, host);
  if (!allowedByName && net.isIP(host)) {
    const why = refusedAddress(req.allow, host);
    if (why) return Promise.reject(new RefusedDestinationError(`${host} is ${why}, which nodes may not reach`));
  }
  const client = url.protocol === 'https:' ? https : http;
  const maxBody = req.maxBodyBytes ?? 10 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: req.method,
        headers: {
          ...req.headers,
          ...(req.body ? { 'content-length': String(req.body.length) } : {}),
        },
        signal: req.signal,
        // An allow-listed name skips the address check; everything else is checked at resolution.
        ...(allowedByName ? {} : { lookup: checkedLookup(req.allow) }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBody) {
            request.destroy(new Error(`response larger than ${maxBody} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const location = res.headers.location;
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ...(location ? { location } : {}) });
        });
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(req.body);
  });
}
