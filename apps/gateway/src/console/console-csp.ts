import type { GatewayConfig } from '../config';

type StorageSettings = Pick<GatewayConfig, 'ASSET_PUBLIC_BASE_URL' | 'S3_PUBLIC_ENDPOINT' | 'S3_ENDPOINT'>;

/**
 * The origins asset URLs point at, so the console's previews may load from
 * them: the CDN, and the store itself, since files served as something other
 * than what is stored stay presigned even with a CDN (packages/storage/src/presign.ts).
 */
function mediaOrigins(config: StorageSettings): string[] {
  const origins = new Set<string>();
  if (config.ASSET_PUBLIC_BASE_URL) origins.add(new URL(config.ASSET_PUBLIC_BASE_URL).origin);
  const endpoint = config.S3_PUBLIC_ENDPOINT ?? config.S3_ENDPOINT;
  // Without an endpoint the store is AWS S3, at <bucket>.s3.<region>.amazonaws.com.
  origins.add(endpoint ? new URL(endpoint).origin : 'https://*.amazonaws.com');
  return [...origins];
}

/** The console's Content-Security-Policy: its own files only, no inline script, media also from the store. */
export function consoleCsp(config: StorageSettings): string {
  const media = mediaOrigins(config).join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob: ${media}`,
    `media-src 'self' blob: ${media}`,
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}
