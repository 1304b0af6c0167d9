import { S3Client } from '@aws-sdk/client-s3';

/** Everything a client needs to reach an S3-compatible store. */
export interface S3Settings {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

/**
 * s3rver only knows the access key id `S3RVER` (it rejects any other with
 * InvalidAccessKeyId) and does not verify SigV4 signatures, so the secret is
 * conventional too.
 */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const DEFAULT_S3_REGION = 'us-east-1';

export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // With the SDK's default (WHEN_SUPPORTED) a streamed PutObject body is sent
    // aws-chunked with a checksum trailer, which s3rver stores verbatim, framing
    // included. Checksums only when an operation requires them keeps bodies intact.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}
