import { CopyObjectCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import {
  NodeFailure,
  UnreadableAsset,
  type AssetInfo,
  type DownloadedAsset,
  type NodeAssets,
  type ProducedFile,
  type StoredAsset,
} from '@weft/nodes';
import { INLINE_EXTENSIONS, isMediaExtension } from '@weft/media';
import type { AssetJobProducer } from '@weft/queue';
import { uploadStream, type Storage, type UrlSigner } from '@weft/storage';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Pool } from 'pg';
import { derivedUuid } from '@weft/db';
import { readableBySql } from '@weft/db';
import { TransientError } from '@weft/errors';

const READABLE = readableBySql('$2');

export interface NodeScope {
  runId: string;
  nodeId: string;
  attempt: number;
  organizationId: string;
  agentId: string;
}

/** Where a run's produced files live in the bucket. */
export function producedAssetKey(runId: string, assetId: string, extension: string): string {
  return `runs/${runId}/${assetId}.${extension}`;
}

async function storageCall<T>(what: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // A cancel or timeout is the node's end, not the store's failure: never retried as one.
    if (signal.aborted) throw err;
    throw new TransientError(`storage ${what} failed: ${(err as Error).message}`, { cause: err });
  }
}

interface AssetRow {
  storage_key: string;
  media_type: AssetInfo['mediaType'];
  content_type: string;
  media_extension: string;
  filename: string;
  size_bytes: string | number;
}

export interface NodeAssetsDeps {
  pool: Pool;
  storage: Storage;
  /** Signs the URLs ffmpeg reads inputs from (servers' audience). */
  urls: UrlSigner;
  assetJobs: AssetJobProducer | undefined;
  /** The execution's working directory (NodeContext.workDir), where downloads go. */
  workDir: () => Promise<string>;
  /** Largest file `read` holds in memory: a bigger one fails the node instead of the worker. */
  maxReadBytes: number;
}

/**
 * Storage as one node attempt sees it. Reads follow the asset access rule
 * (own organization, or public/shared). Writes are keyed by (run, node,
 * attempt, index): the asset id and object key are derived from them, the
 * object is overwritten and the row inserted only once, so a redelivered
 * attempt registers nothing twice.
 */
export function nodeAssets(deps: NodeAssetsDeps, scope: NodeScope): NodeAssets {
  const { pool, storage } = deps;
  const rows = new Map<string, AssetRow>();

  async function row(assetId: string): Promise<AssetRow> {
    const known = rows.get(assetId);
    if (known) return known;
    const { rows: found } = await pool.query<AssetRow>({
      name: 'engine_read_asset_v2',
      text: `SELECT storage_key, media_type, content_type, media_extension, filename, size_bytes FROM assets
              WHERE id = $1 AND deleted_at IS NULL AND ${READABLE}`,
      values: [assetId, scope.organizationId],
    });
    const first = found[0];
    if (!first) throw new UnreadableAsset(assetId);
    rows.set(assetId, first);
    return first;
  }

  const infoOf = (id: string, r: AssetRow): AssetInfo => ({
    id,
    mediaType: r.media_type,
    contentType: r.content_type,
    extension: r.media_extension,
    filename: r.filename,
    sizeBytes: Number(r.size_bytes),
  });

  async function body(r: AssetRow, signal: AbortSignal) {
    const object = await storageCall('read', signal, () =>
      storage.client.send(new GetObjectCommand({ Bucket: storage.bucket, Key: r.storage_key }), {
        abortSignal: signal,
      }),
    );
    return object.Body!;
  }

  return {
    async info(assetId) {
      return infoOf(assetId, await row(assetId));
    },

    async read(assetId, signal): Promise<StoredAsset> {
      const r = await row(assetId);
      if (Number(r.size_bytes) > deps.maxReadBytes) {
        throw new NodeFailure(
          'invalid_input',
          `Node '${scope.nodeId}': asset ${assetId} (${r.filename}) has ${r.size_bytes} bytes, more than the ` +
            `${deps.maxReadBytes} a node reads into memory (ASSET_MAX_IMAGE_BYTES)`,
        );
      }
      const stream = await body(r, signal);
      const bytes = Buffer.from(await storageCall('read', signal, () => stream.transformToByteArray()));
      return { ...infoOf(assetId, r), bytes };
    },

    async download(assetId, signal): Promise<DownloadedAsset> {
      const r = await row(assetId);
      const dir = await deps.workDir();
      const file = path.join(dir, `in-${assetId}.${r.media_extension}`);
      const stream = await body(r, signal);
      await storageCall('read', signal, () => pipeline(stream as Readable, fs.createWriteStream(file), { signal }));
      return { ...infoOf(assetId, r), path: file };
    },

    async url(assetId) {
      const r = await row(assetId);
      return { info: infoOf(assetId, r), url: await deps.urls.urlFor(r.storage_key) };
    },

    async store(file: ProducedFile, index: number, signal: AbortSignal): Promise<string> {
      const id = derivedUuid('asset', scope.runId, scope.nodeId, scope.attempt, index);
      const key = producedAssetKey(scope.runId, id, file.extension);
      const size = file.bytes ? file.bytes.length : (await fs.promises.stat(file.path)).size;
      await storageCall('write', signal, () =>
        uploadStream(storage, {
          key,
          body: file.bytes ? Readable.from([file.bytes]) : fs.createReadStream(file.path),
          // A type a browser could run (SVG) is kept as an inert download, as uploads are (ADR 24);
          // the row keeps its real type.
          ...(isMediaExtension(file.extension) && INLINE_EXTENSIONS.has(file.extension)
            ? { contentType: file.contentType }
            : { contentType: 'application/octet-stream', contentDisposition: 'attachment' }),
          maxBytes: Math.max(size, 1),
          signal,
        }),
      );
      await pool.query({
        name: 'engine_register_asset_v1',
        text: `INSERT INTO assets (id, organization_id, asset_type, media_type, media_extension, visibility, filename,
                                   content_type, size_bytes, storage_key, agent_id, run_id, asset_metadata,
                                   created_at, updated_at)
               VALUES ($1, $2, 'intermediate', $3::"MediaType", $4, 'private', $5, $6, $7, $8, $9, $10, $11, now(), now())
               ON CONFLICT (id) DO NOTHING`,
        values: [
          id,
          scope.organizationId,
          file.mediaType,
          file.extension,
          file.filename ?? `${scope.nodeId}-${index}.${file.extension}`,
          file.contentType,
          size,
          key,
          scope.agentId,
          scope.runId,
          JSON.stringify(file.metadata ?? {}),
        ],
      });
      // Processed like an upload (thumbnail, metadata). Also on a redelivered attempt, whose
      // first execution may have died before this line: the job id is per asset, so it is added once.
      await deps.assetJobs?.enqueueProcessing(id);
      return id;
    },

    async copy(assetId: string, filename: string, index: number, signal: AbortSignal): Promise<string> {
      const r = await row(assetId);
      const id = derivedUuid('asset', scope.runId, scope.nodeId, scope.attempt, index);
      const key = producedAssetKey(scope.runId, id, r.media_extension);
      // The store copies the object with its Content-Type and Content-Disposition (an SVG
      // stays an inert download): the bytes never pass through the worker.
      await storageCall('copy', signal, () =>
        storage.client.send(
          new CopyObjectCommand({ Bucket: storage.bucket, Key: key, CopySource: copySource(storage.bucket, r) }),
          { abortSignal: signal },
        ),
      );
      await pool.query({
        name: 'engine_register_asset_copy_v1',
        text: `INSERT INTO assets (id, organization_id, asset_type, media_type, media_extension, visibility, filename,
                                   content_type, size_bytes, storage_key, agent_id, run_id, asset_metadata,
                                   created_at, updated_at)
               SELECT $1, $2, 'intermediate', media_type, media_extension, 'private', $3, content_type, size_bytes,
                      $4, $5, $6, COALESCE(asset_metadata, '{}'::jsonb), now(), now()
                 FROM assets WHERE id = $7
               ON CONFLICT (id) DO NOTHING`,
        values: [id, scope.organizationId, filename, key, scope.agentId, scope.runId, assetId],
      });
      await deps.assetJobs?.enqueueProcessing(id);
      return id;
    },
  };
}

/** CopyObject's source: `bucket/key`, the key URL-encoded but for its slashes. */
function copySource(bucket: string, r: AssetRow): string {
  return `${bucket}/${r.storage_key.split('/').map(encodeURIComponent).join('/')}`;
}
