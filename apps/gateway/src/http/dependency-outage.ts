import { isDatabaseUnavailable } from '@weft/db';
import { DependencyUnavailableError, isSocketFailure } from '@weft/errors';
import { isRedisUnavailable } from '@weft/queue';
import { isStorageUnavailable } from '@weft/storage';

/**
 * The DependencyUnavailableError an error thrown by a client stands for, if
 * it says PostgreSQL, Redis or the object store could not be reached. Client
 * errors carry their own marks (Prisma codes, ioredis messages, the S3 SDK's
 * status), checked in that order; a bare socket error (pg reports its
 * refused connections so) names no dependency.
 */
export function asDependencyOutage(err: unknown): DependencyUnavailableError | undefined {
  if (isDatabaseUnavailable(err)) return new DependencyUnavailableError('database', { cause: err });
  if (isRedisUnavailable(err)) return new DependencyUnavailableError('redis', { cause: err });
  if (isSocketFailure(err)) return new DependencyUnavailableError(undefined, { cause: err });
  if (isStorageUnavailable(err)) return new DependencyUnavailableError('storage', { cause: err });
  return undefined;
}
