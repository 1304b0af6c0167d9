import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '@weft/devstack';
import { Redis } from 'ioredis';
import type { TestServices } from './test-services-env';
import { BUCKET_PREFIX, DATABASE_PREFIX, REDIS_PREFIX_ROOT, TEMPLATE_PREFIX, isAbandoned } from './test-resource-names';
import { deleteBucket, deleteRedisKeys, dropDatabase, withAdminClient } from './test-resources';

/**
 * A test file killed mid-run (Ctrl-C, a crash) never reaches cleanup(). Its
 * resources are removed here, at the start of a later run, once they are old
 * enough that no live run can still own them. Best effort: failures are
 * reported, never fatal.
 */
export async function removeAbandonedTestResources(services: TestServices): Promise<string[]> {
  const problems: string[] = [];
  const note = (what: string) => (err: unknown) => problems.push(`${what}: ${(err as Error).message}`);

  await withAdminClient(services.adminDatabaseUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [DATABASE_PREFIX],
    );
    for (const { datname } of rows) {
      const prefix = datname.startsWith(TEMPLATE_PREFIX) ? TEMPLATE_PREFIX : DATABASE_PREFIX;
      // Without FORCE: a database someone is still connected to is not abandoned.
      if (isAbandoned(datname.slice(prefix.length))) await dropDatabase(client, datname, false).catch(note(datname));
    }
  }).catch(note('databases'));

  const redis = new Redis(services.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const ids = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${REDIS_PREFIX_ROOT}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) ids.add(key.slice(REDIS_PREFIX_ROOT.length).split(':')[0] ?? '');
    } while (cursor !== '0');
    for (const id of ids) {
      if (isAbandoned(id)) await deleteRedisKeys(redis, `${REDIS_PREFIX_ROOT}${id}`);
    }
  } catch (err) {
    note('redis')(err);
  } finally {
    redis.disconnect();
  }

  const s3 = createS3Client(services.s3);
  try {
    const { Buckets = [] } = await s3.send(new ListBucketsCommand({}));
    for (const { Name } of Buckets) {
      if (Name?.startsWith(BUCKET_PREFIX) && isAbandoned(Name.slice(BUCKET_PREFIX.length).replace('-', '_')))
        await deleteBucket(s3, Name).catch(note(Name));
    }
  } catch (err) {
    note('buckets')(err);
  } finally {
    s3.destroy();
  }
  return problems;
}
