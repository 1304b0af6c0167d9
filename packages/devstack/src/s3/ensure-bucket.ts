import { CreateBucketCommand, HeadBucketCommand } from '@aws-sdk/client-s3';
import { createS3Client, type S3Settings } from './s3-settings';

/** Creates `bucket` unless it exists. Returns true if it created it. */
export async function ensureBucket(settings: S3Settings, bucket: string): Promise<boolean> {
  const client = createS3Client(settings);
  try {
    try {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
      return false;
    } catch (err) {
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 404) throw err;
    }
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return true;
    } catch (err) {
      // Another process created it between our HEAD and CREATE.
      if ((err as Error).name === 'BucketAlreadyOwnedByYou') return false;
      throw err;
    }
  } finally {
    client.destroy();
  }
}
