import type { Db } from '@weft/db';
import { isReadableBy } from '@weft/db';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import type { Loaded } from '../cache/invalidated-cache';
import { createSharedCache } from '../cache/shared-cache';

// What a download needs to know of an asset, kept in each instance's memory.
// A player seeking through a video sends a Range request per seek, and a file
// shown on a page is fetched by every viewer: without this, each of them is a
// PostgreSQL round trip before the first byte.
//
// These facts never change once the asset exists, with two exceptions, both
// one-way: deletion (DELETE publishes the id, and every instance forgets it:
// the instance that deleted at once, the others when the Redis message
// arrives, within milliseconds; while a subscriber is reconnecting entries
// live one second), and the `downloaded` flag (false → true; a stale false
// costs a conditional UPDATE that changes nothing).

export interface AssetFile {
  id: string;
  organizationId: string;
  visibility: string;
  storageKey: string;
  contentType: string;
  size: number;
  filename: string | null;
  mediaExtension: string;
  deleted: boolean;
  /** True once this instance knows the flag is set. */
  downloaded: boolean;
}

export interface AssetFiles {
  /** The asset if `organizationId` may read it (its own, or public or shared), deleted ones included. */
  readable(organizationId: string, assetId: string): Promise<AssetFile | undefined>;
  /** Sets the asset's `downloaded` flag unless it is known to be set; failures go to `onError`. */
  markDownloaded(file: AssetFile, onError: (err: unknown) => void): void;
  /** Call after committing a delete. */
  deleted(assetId: string): Promise<void>;
  whenLive(): Promise<void>;
  close(): Promise<void>;
}

export interface AssetFilesDeps {
  db: Db;
  redis: RedisClient;
  redisPrefix: string;
  /** 0 reads every download's row from the database. */
  ttlMs: number;
  logger: Logger;
}

export const assetChangesChannel = (redisPrefix: string) => `${redisPrefix}:asset-changed`;

// In SQL through the pool Prisma shares: an un-batched Prisma query costs
// about four times the CPU of `pg`.
const LOAD_ASSET_FILE = {
  name: 'assets_load_file_v1',
  text: `SELECT id, organization_id, visibility, storage_key, content_type, size_bytes, filename, media_extension,
                downloaded, deleted_at IS NOT NULL AS deleted
           FROM assets
          WHERE id = $1`,
};
const MARK_DOWNLOADED = {
  name: 'assets_mark_downloaded_v1',
  text: `UPDATE assets SET downloaded = true, updated_at = now() WHERE id = $1 AND NOT downloaded`,
};

interface Row {
  id: string;
  organization_id: string;
  visibility: string;
  storage_key: string;
  content_type: string;
  size_bytes: string;
  filename: string | null;
  media_extension: string;
  downloaded: boolean;
  deleted: boolean;
}

async function loadAssetFile(db: Db, assetId: string): Promise<Loaded<AssetFile>> {
  const { rows } = await db.pool.query<Row>({ ...LOAD_ASSET_FILE, values: [assetId] });
  const row = rows[0];
  // Ids are ours (random UUIDs), so a missing one stays missing: remembered only briefly all the same.
  if (!row) return { missing: 'for-now' };
  return {
    value: {
      id: row.id,
      organizationId: row.organization_id,
      visibility: row.visibility,
      storageKey: row.storage_key,
      contentType: row.content_type,
      size: Number(row.size_bytes),
      filename: row.filename,
      mediaExtension: row.media_extension,
      deleted: row.deleted,
      downloaded: row.downloaded,
    },
  };
}

export function createAssetFiles({ db, redis, redisPrefix, ttlMs, logger }: AssetFilesDeps): AssetFiles {
  const cache = createSharedCache<AssetFile>({
    redis,
    channel: assetChangesChannel(redisPrefix),
    ttlMs,
    load: (id) => loadAssetFile(db, id),
    logger: logger.child({ component: 'asset-files' }),
  });
  return {
    async readable(organizationId, assetId) {
      const file = await cache.get(assetId);
      if (!file) return undefined;
      return isReadableBy(file, organizationId) ? file : undefined;
    },
    markDownloaded(file, onError) {
      if (file.downloaded) return;
      db.pool.query({ ...MARK_DOWNLOADED, values: [file.id] }).then(() => {
        file.downloaded = true;
      }, onError);
    },
    deleted: (assetId) => cache.changed(assetId),
    whenLive: () => cache.whenLive(),
    close: () => cache.close(),
  };
}
