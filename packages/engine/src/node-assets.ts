import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { NodeFailure, type NodeAssets, type ProducedFile, type StoredAsset } from '@weft/nodes';
import type { AssetJobProducer } from '@weft/queue';
import type { Storage } from '@weft/storage';
import type { Pool } from 'pg';
import { derivedUuid } from './ids';
import { TransientError } from './transient';

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

async function storageCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new TransientError(`storage ${what} failed: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Storage as one node attempt sees it. Reads follow the asset access rule
 * (own organization, or public/shared). Writes are keyed by (run, node,
 * attempt, index): the asset id and object key are derived from them, the
 * object is overwritten and the row inserted only once, so a redelivered
 * attempt registers nothing twice.
 */
export function nodeAssets(
  pool: Pool,
  storage: Storage,
  scope: NodeScope,
  assetJobs: AssetJobProducer | undefined,
): NodeAssets {
  return {
    async read(assetId: string, signal: AbortSignal): Promise<StoredAsset> {
      const { rows } = await pool.query<{
        storage_key: string;
        media_type: StoredAsset['mediaType'];
        content_type: string;
      }>({
        name: 'engine_read_asset_v1',
        text: `SELECT storage_key, media_type, content_type FROM assets
                WHERE id = $1 AND deleted_at IS NULL AND (organization_id = $2 OR visibility IN ('public', 'shared'))`,
        values: [assetId, scope.organizationId],
      });
      const row = rows[0];
      if (!row) throw new NodeFailure('invalid_input', `Asset ${assetId} does not exist or is not readable`);
      const object = await storageCall('read', () =>
        storage.client.send(new GetObjectCommand({ Bucket: storage.bucket, Key: row.storage_key }), {
          abortSignal: signal,
        }),
      );
      const bytes = Buffer.from(await storageCall('read', () => object.Body!.transformToByteArray()));
      return { id: assetId, mediaType: row.media_type, contentType: row.content_type, bytes };
    },

    async store(file: ProducedFile, index: number, signal: AbortSignal): Promise<string> {
      const id = derivedUuid('asset', scope.runId, scope.nodeId, scope.attempt, index);
      const key = producedAssetKey(scope.runId, id, file.extension);
      await storageCall('write', () =>
        storage.client.send(
          new PutObjectCommand({ Bucket: storage.bucket, Key: key, Body: file.bytes, ContentType: file.contentType }),
          { abortSignal: signal },
        ),
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
          `${scope.nodeId}-${index}.${file.extension}`,
          file.contentType,
          file.bytes.length,
          key,
          scope.agentId,
          scope.runId,
          JSON.stringify(file.metadata ?? {}),
        ],
      });
      // Processed like an upload (thumbnail, metadata). Also on a redelivered attempt, whose
      // first execution may have died before this line: the job id is per asset, so it is added once.
      await assetJobs?.enqueueProcessing(id);
      return id;
    },
  };
}
