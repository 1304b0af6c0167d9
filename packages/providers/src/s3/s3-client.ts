import { S3Client } from '@aws-sdk/client-s3';
import { checkedLookup, hostAllowed, parseAllowList, refusedAddress, RefusedDestinationError } from '@weft/nodes';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { ProviderCredential } from '../credentials';

/** An organization's bucket: its settings beside the secret access key. */
export interface BucketSettings {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId: string;
  forcePathStyle: boolean;
}

export function bucketSettings(credential: ProviderCredential): BucketSettings {
  const s = credential.settings ?? {};
  return {
    bucket: String(s.bucket ?? ''),
    region: String(s.region ?? 'us-east-1'),
    ...(typeof s.endpoint === 'string' && s.endpoint ? { endpoint: s.endpoint } : {}),
    accessKeyId: String(s.access_key_id ?? ''),
    forcePathStyle: s.force_path_style === true || s.force_path_style === 'true',
  };
}

export interface Bucket {
  s3: S3Client;
  settings: BucketSettings;
}

/**
 * A client of an organization's bucket. Its endpoint is the organization's
 * choice, so every connection obeys the outbound rules: names are resolved by
 * the checking lookup, and a literal address is judged before any request.
 */
export function bucketClient(credential: ProviderCredential, allowList: readonly string[]): Bucket {
  const settings = bucketSettings(credential);
  const allow = parseAllowList(allowList);
  if (settings.endpoint) {
    const host = new URL(settings.endpoint).hostname.replace(/^\[|\]$/g, '');
    const why = net.isIP(host) ? refusedAddress(allow, host) : undefined;
    if (why) throw new RefusedDestinationError(`${host} is ${why}, which nodes may not reach`);
  }
  // A name on the allow list is connected to as is, like guardedRequest does.
  const named = settings.endpoint ? hostAllowed(allow, new URL(settings.endpoint).hostname) : false;
  const lookup = named ? undefined : checkedLookup(allow);
  const s3 = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: credential.secret },
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent({ keepAlive: true, lookup } as http.AgentOptions),
      httpsAgent: new https.Agent({ keepAlive: true, lookup } as https.AgentOptions),
    }),
    maxAttempts: 3,
  });
  return { s3, settings };
}
