import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { createS3Client, type S3Settings } from './s3-settings';

/** Calls ListBuckets: proves the port speaks S3 and accepts these credentials. */
export async function probeS3(settings: S3Settings, timeoutMs = 3000): Promise<void> {
  const client = createS3Client(settings);
  try {
    await client.send(new ListBucketsCommand({}), { abortSignal: AbortSignal.timeout(timeoutMs) });
  } finally {
    client.destroy();
  }
}
