import { GetObjectCommand, ListObjectsV2Command, type _Object } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assetIds, many, type NodeContext, type NodeResult } from '@weft/nodes';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { metered, type Capability, type ProviderCall } from '../capability';
import { storeResultStream } from '../results';
import type { Bucket } from './s3-client';
import { s3Failure } from './s3-failures';

/** Keys as the bucket names them: `path/name`, whatever slashes the params carry. */
const joinKey = (prefix: string, name: string) => [prefix.replace(/\/+$/, ''), name].filter(Boolean).join('/');

async function inBucket<T>(ctx: NodeContext, call: ProviderCall<Bucket>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw s3Failure(err, ctx.nodeId, call.credentialSource, ctx.signal);
  }
}

/** cloudstorage_find_file: the files under params.prefix (at most params.limit, by key), stored as assets of the run. */
export const findFiles: Capability<Bucket> = {
  defaultModel: 's3',
  async execute(ctx, call): Promise<NodeResult> {
    const { prefix, limit } = ctx.params as { prefix: string; limit: number };
    const { s3, settings } = call.client;
    const found: _Object[] = [];
    let token: string | undefined;
    let requests = 0;
    do {
      const page = await inBucket(ctx, call, () =>
        s3.send(new ListObjectsV2Command({ Bucket: settings.bucket, Prefix: prefix, ContinuationToken: token }), {
          abortSignal: ctx.signal,
        }),
      );
      requests++;
      // Folders' placeholder objects ("a/b/") hold nothing to store.
      found.push(...(page.Contents ?? []).filter((o) => o.Key && !o.Key.endsWith('/')));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token && found.length < limit);
    const ids: string[] = [];
    for (const [index, object] of found.slice(0, limit).entries()) {
      const body = await inBucket(ctx, call, async () => {
        const got = await s3.send(new GetObjectCommand({ Bucket: settings.bucket, Key: object.Key }), {
          abortSignal: ctx.signal,
        });
        return got.Body as Readable;
      });
      requests++;
      ids.push(await storeResultStream(ctx, body, index, 'file', path.posix.basename(object.Key!)));
    }
    return { output: { type: 'files', value: ids }, ...metered(call, { requests, items: ids.length }) };
  },
};

/** cloudstorage_upload_file: each asset at `assets` written under params.path; data of the keys written. */
export const uploadFiles: Capability<Bucket> = {
  defaultModel: 's3',
  async execute(ctx, call): Promise<NodeResult> {
    const { path: prefix } = ctx.params as { path: string };
    const { s3, settings } = call.client;
    const keys: string[] = [];
    for (const id of many(ctx, 'assets').flatMap((v) => assetIds(ctx, v))) {
      const file = await ctx.assets.download(id, ctx.signal);
      const key = joinKey(prefix, file.filename);
      await inBucket(ctx, call, async () => {
        const upload = new Upload({
          client: s3,
          params: {
            Bucket: settings.bucket,
            Key: key,
            Body: fs.createReadStream(file.path),
            ContentType: file.contentType,
          },
        });
        const abort = () => void upload.abort();
        ctx.signal.addEventListener('abort', abort, { once: true });
        try {
          await upload.done();
        } finally {
          ctx.signal.removeEventListener('abort', abort);
        }
      });
      keys.push(key);
    }
    return {
      output: { type: 'data', value: { bucket: settings.bucket, keys } },
      ...metered(call, { requests: keys.length, items: keys.length }),
    };
  },
};
