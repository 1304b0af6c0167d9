import { DEFAULT_DATABASE_URL, migrationDatabaseUrl } from './config';

test('migrations go to MIGRATION_DATABASE_URL, else DATABASE_URL, else the local default', () => {
  const direct = 'postgresql://weft@db:5432/weft';
  const bouncer = 'postgresql://weft@pgbouncer:6432/weft?pgbouncer=true';
  expect(migrationDatabaseUrl({ DATABASE_URL: bouncer, MIGRATION_DATABASE_URL: direct })).toBe(direct);
  expect(migrationDatabaseUrl({ DATABASE_URL: direct, MIGRATION_DATABASE_URL: '' })).toBe(direct);
  expect(migrationDatabaseUrl({})).toBe(DEFAULT_DATABASE_URL);
  expect(() => migrationDatabaseUrl({ MIGRATION_DATABASE_URL: 'pgbouncer host' })).toThrow(/MIGRATION_DATABASE_URL/);
});
