import { HeadBucketCommand } from '@aws-sdk/client-s3';
import type { ProviderAdapter } from '../provider-adapter';
import { findFiles, uploadFiles } from './cloudstorage';
import { bucketClient, type Bucket } from './s3-client';

/**
 * S3-compatible storage for the cloud storage nodes: only with an
 * organization's credential (POST /credentials, provider s3), named by the
 * node's params.credential_id; the deployment has none of its own.
 */
export function s3Adapter(outboundAllowList: readonly string[]): ProviderAdapter<Bucket> {
  return {
    provider: 's3',
    credential: 'an s3 credential of the organization (POST /credentials) named by params.credential_id',
    deployment: undefined,
    connect: (credential) => bucketClient(credential, outboundAllowList),
    async verify({ s3, settings }, signal) {
      await s3.send(new HeadBucketCommand({ Bucket: settings.bucket }), { abortSignal: signal });
    },
    capabilities: { cloudstorage_find_file: findFiles, cloudstorage_upload_file: uploadFiles },
  };
}
