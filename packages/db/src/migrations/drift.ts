import { diffSchemaAgainstMigrations, type DiffOptions } from './diff';

export interface DriftReport {
  /** True when prisma/schema.prisma and prisma/migrations describe the same database. */
  inSync: boolean;
  /** The SQL a new migration would need to contain; null when in sync. */
  missingSql: string | null;
}

export async function checkDrift(options: DiffOptions = {}): Promise<DriftReport> {
  const missingSql = await diffSchemaAgainstMigrations(options);
  return { inSync: missingSql === null, missingSql };
}
