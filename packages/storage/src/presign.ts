import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import type { Storage } from './s3-storage';

export interface UrlSignerOptions {
  /** How long a presigned URL stays valid at most (SigV4 allows up to 7 days). */
  ttlSeconds: number;
  /**
   * A public base URL (a CDN in front of the bucket) to build plain URLs on
   * instead of presigning: `${publicBaseUrl}/${key}`.
   */
  publicBaseUrl?: string;
  /**
   * Who fetches the URLs: `clients` (default) get URLs for `publicEndpoint`
   * when one is set; `servers` (our own reads) always the endpoint servers use.
   */
  audience?: 'clients' | 'servers';
  now?: () => number;
}

/**
 * Headers the store answers a GET with in place of the object's own
 * (`response-content-type`, `response-content-disposition`), for files a
 * browser must download rather than render.
 */
export interface ServedAs {
  contentType: string;
  contentDisposition: string;
}

export interface UrlSigner {
  /**
   * A URL any HTTP client can GET without credentials, for a limited time.
   * With `servedAs`, always a signed URL of the store, even when a CDN base is
   * set: the overrides are part of the signed query, which a CDN URL cannot carry.
   */
  urlFor(key: string, servedAs?: ServedAs): Promise<string>;
}

/** RFC 3986 escaping, as SigV4 canonicalises query values (encodeURIComponent leaves !'()* alone). */
const escapeComponent = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Keys are ids and slashes, but each segment is escaped as SigV4 wants it anyway. */
const escapeKey = (key: string) => key.split('/').map(escapeComponent).join('/');

/** Where a GET of `key` goes: path-style on a custom endpoint, virtual-hosted on AWS. */
function objectLocation(storage: Storage, key: string, audience: 'clients' | 'servers') {
  const { forcePathStyle, region } = storage.config;
  // The signature covers the host: sign for the address the client will use.
  const endpoint =
    audience === 'clients' ? (storage.config.publicEndpoint ?? storage.config.endpoint) : storage.config.endpoint;
  const base = new URL(endpoint ?? `https://s3.${region}.amazonaws.com`);
  const virtualHost = !forcePathStyle && !endpoint;
  const hostname = virtualHost ? `${storage.bucket}.${base.hostname}` : base.hostname;
  const prefix = base.pathname.replace(/\/+$/, '');
  const path = virtualHost ? `${prefix}/${escapeKey(key)}` : `${prefix}/${storage.bucket}/${escapeKey(key)}`;
  const port = base.port ? Number(base.port) : undefined;
  return { protocol: base.protocol, hostname, port, path, host: base.port ? `${hostname}:${base.port}` : hostname };
}

type Location = ReturnType<typeof objectLocation>;

async function signedUrl(
  presigner: S3RequestPresigner,
  at: Location,
  method: 'GET' | 'PUT',
  expiresIn: number,
  signingDate?: Date,
  query: Record<string, string> = {},
): Promise<string> {
  const signed = await presigner.presign(
    {
      method,
      protocol: at.protocol,
      hostname: at.hostname,
      ...(at.port ? { port: at.port } : {}),
      path: at.path,
      query,
      headers: { host: at.host },
    },
    { expiresIn, ...(signingDate ? { signingDate } : {}) },
  );
  const signedQuery = Object.entries(signed.query as Record<string, string>)
    .map(([name, value]) => `${escapeComponent(name)}=${escapeComponent(value)}`)
    .join('&');
  return `${at.protocol}//${at.host}${at.path}?${signedQuery}`;
}

const putPresigners = new WeakMap<Storage, S3RequestPresigner>();

/**
 * A URL our own servers PUT one object to, valid for `ttlSeconds`. Only the
 * host is signed: Content-Type and Content-Length go as plain headers, and
 * the payload is UNSIGNED-PAYLOAD, as for any presigned URL (and for the
 * SDK's streamed PUTs).
 */
export async function presignPut(storage: Storage, key: string, ttlSeconds: number): Promise<string> {
  let presigner = putPresigners.get(storage);
  if (!presigner) {
    presigner = new S3RequestPresigner({ ...storage.client.config });
    putPresigners.set(storage, presigner);
  }
  return signedUrl(presigner, objectLocation(storage, key, 'servers'), 'PUT', ttlSeconds);
}

/**
 * Presigned GET URLs. The signing time is rounded down to a window of half
 * the TTL, so every read within a window hands out the same URL (browsers and
 * proxies can cache the bytes) and each URL stays valid for at least half the
 * TTL after it is given out. Signing goes straight to the SigV4 presigner:
 * `getSignedUrl` runs the client's whole middleware stack and endpoint rules,
 * about 2 ms of CPU per URL against 0.2 ms, and a list of assets signs dozens.
 * Within a window a URL is also remembered, since it cannot change.
 * With `publicBaseUrl`, URLs are plain CDN URLs, except those of files
 * `servedAs` something other than what is stored.
 */
export function createUrlSigner(storage: Storage, options: UrlSignerOptions): UrlSigner {
  const signed = createPresignedUrlSigner(storage, options);
  if (!options.publicBaseUrl) return signed;
  const base = options.publicBaseUrl.replace(/\/+$/, '');
  return {
    urlFor: async (key, servedAs) => (servedAs ? signed.urlFor(key, servedAs) : `${base}/${escapeKey(key)}`),
  };
}

function createPresignedUrlSigner(storage: Storage, options: UrlSignerOptions): UrlSigner {
  const now = options.now ?? Date.now;
  const presigner = new S3RequestPresigner({ ...storage.client.config });
  const windowMs = Math.max(1, Math.floor(options.ttlSeconds / 2)) * 1000;
  const MAX_REMEMBERED = 10_000;
  let remembered = new Map<string, string>();
  let rememberedWindow = -1;
  return {
    async urlFor(key, servedAs) {
      const window = Math.floor(now() / windowMs);
      if (window !== rememberedWindow || remembered.size >= MAX_REMEMBERED) {
        remembered = new Map();
        rememberedWindow = window;
      }
      const name = servedAs ? `${key}\n${servedAs.contentType}\n${servedAs.contentDisposition}` : key;
      const known = remembered.get(name);
      if (known) return known;
      const at = objectLocation(storage, key, options.audience ?? 'clients');
      const query: Record<string, string> = servedAs
        ? {
            'response-content-disposition': servedAs.contentDisposition,
            'response-content-type': servedAs.contentType,
          }
        : {};
      const url = await signedUrl(presigner, at, 'GET', options.ttlSeconds, new Date(window * windowMs), query);
      remembered.set(name, url);
      return url;
    },
  };
}
