import { loadAssetFile, markAssetDownloaded, type AssetFile } from '@weft/assets';
import type { Db } from '@weft/db';
import { isReadableBy } from '@weft/db';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import type { Loaded } from '../cache/invalidated-cache';
import { createSharedCache } from '../cache/shared-cache';

// What a download needs to know of an asset (AssetFile), kept in each instance's memory.
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

async function loadCached(db: Db, assetId: string): Promise<Loaded<AssetFile>> {
  const file = await loadAssetFile(db, assetId);
  // Ids are ours (random UUIDs), so a missing one stays missing: remembered only briefly all the same.
  return file ? { value: file } : { missing: 'for-now' };
}

export function createAssetFiles({ db, redis, redisPrefix, ttlMs, logger }: AssetFilesDeps): AssetFiles {
  const cache = createSharedCache<AssetFile>({
    redis,
    channel: assetChangesChannel(redisPrefix),
    ttlMs,
    load: (id) => loadCached(db, id),
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
      markAssetDownloaded(db, file.id).then(() => {
        file.downloaded = true;
      }, onError);
    },
    deleted: (assetId) => cache.changed(assetId),
    whenLive: () => cache.whenLive(),
    close: () => cache.close(),
  };
}
