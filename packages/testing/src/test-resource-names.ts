import { randomBytes } from 'node:crypto';

// Every per-file resource (database, Redis prefix, bucket) is named after its
// creation time and a random part. The time lets the next run's janitor remove
// what a killed run left behind without touching a concurrent run's live data.

/**
 * Each jest run migrates a template of its own, `weft_test_template_<id>`,
 * dropped at teardown. One shared name would let a run starting now drop and
 * rebuild the template while a concurrent run is still copying it.
 */
export const TEMPLATE_PREFIX = 'weft_test_template_';

/** Resources older than this are assumed abandoned. */
export const ABANDONED_AFTER_MS = 2 * 60 * 60 * 1000;

const TEST_ID = /^([0-9a-z]{6,8})_([0-9a-f]{8})$/;

export interface TestResourceNames {
  id: string;
  database: string;
  redisPrefix: string;
  bucket: string;
}

function newId(now: number): string {
  return `${Math.floor(now / 1000).toString(36)}_${randomBytes(4).toString('hex')}`;
}

export function newTemplateName(now = Date.now()): string {
  return `${TEMPLATE_PREFIX}${newId(now)}`;
}

export function newTestResourceNames(now = Date.now()): TestResourceNames {
  const id = newId(now);
  return {
    id,
    database: `weft_test_${id}`,
    redisPrefix: `weft_test:${id}`,
    // Bucket names allow no underscores.
    bucket: `weft-test-${id.replace('_', '-')}`,
  };
}

/** When the resource named by `id` (as in newTestResourceNames) was created; undefined if not one of ours. */
export function createdAtOf(id: string): number | undefined {
  const match = TEST_ID.exec(id);
  return match?.[1] ? parseInt(match[1], 36) * 1000 : undefined;
}

export function isAbandoned(id: string, now = Date.now()): boolean {
  const createdAt = createdAtOf(id);
  return createdAt !== undefined && now - createdAt > ABANDONED_AFTER_MS;
}

export const DATABASE_PREFIX = 'weft_test_';
export const REDIS_PREFIX_ROOT = 'weft_test:';
export const BUCKET_PREFIX = 'weft-test-';
