import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestEnv, type TestEnv } from '@weft/testing';
import { applyMigrations } from './apply';
import { MIGRATIONS_DIR, SCHEMA_PATH } from './config';
import { createMigration } from './diff';
import { checkDrift } from './drift';
import { LOCKFILE, MIGRATION_FILE, readMigrationList } from './migrations-dir';
import { parseDatabaseUrl, quoteIdent, withClient } from './pg-url';

// Runs on the test PostgreSQL server: shadow databases are created on it, and
// the apply tests migrate fresh schemas of this file's own database.

jest.setTimeout(120_000);

const execFileAsync = promisify(execFile);
const CLI = path.join(__dirname, 'cli.ts');

let env: TestEnv;
let databaseUrl: string;
beforeAll(async () => {
  env = await createTestEnv();
  databaseUrl = env.databaseUrl;
});
afterAll(() => env?.cleanup());

function uniqueSchema(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

function urlWithSchema(schema: string, base = databaseUrl): string {
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return url.toString();
}

async function sql<T extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  return withClient(parseDatabaseUrl(databaseUrl).plain, async (c) => (await c.query<T>(text, params)).rows);
}

/** `npm run db:migrate` in a child process, for a database URL with `?schema=`. */
function runMigrateCli(url: string, vars: Record<string, string> = {}) {
  return execFileAsync(process.execPath, [require.resolve('tsx/cli'), CLI, 'migrate'], {
    env: { ...process.env, DATABASE_URL: url, ...vars },
    timeout: 90_000,
  });
}

async function migrationNames(): Promise<string[]> {
  return (await readMigrationList(MIGRATIONS_DIR)).migrationDirectories.map((d) => d.path);
}

describe('prisma/schema.prisma vs prisma/migrations', () => {
  it('agree (run `npm run db:migration -- <name>` after changing the schema)', async () => {
    const { inSync, missingSql } = await checkDrift({ databaseUrl });
    if (!inSync) {
      throw new Error(
        `prisma/schema.prisma has changes that no migration contains. Run \`npm run db:migration -- <name>\`. Missing SQL:\n${missingSql}`,
      );
    }
    expect(inSync).toBe(true);
  });

  it('reports a schema change that has no migration, and a new migration fixes it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'weft-migrations-'));
    try {
      const schemaPath = path.join(dir, 'schema.prisma');
      const migrationsDir = path.join(dir, 'migrations');
      await fs.cp(MIGRATIONS_DIR, migrationsDir, { recursive: true });
      const schema = await fs.readFile(SCHEMA_PATH, 'utf8');
      await fs.writeFile(schemaPath, `${schema}\nmodel DriftProbe {\n  id Int @id\n  @@map("drift_probe")\n}\n`);

      const drift = await checkDrift({ databaseUrl, schemaPath, migrationsDir });
      expect(drift.inSync).toBe(false);
      expect(drift.missingSql).toContain('CREATE TABLE "drift_probe"');

      const created = await createMigration('add drift probe', { databaseUrl, schemaPath, migrationsDir });
      expect(created.migrationName).toMatch(/^\d{14}_add_drift_probe$/);
      const written = await fs.readFile(path.join(migrationsDir, created.migrationName!, MIGRATION_FILE), 'utf8');
      expect(written).toBe(created.sql);
      expect(await fs.readFile(path.join(migrationsDir, LOCKFILE), 'utf8')).toContain('provider = "postgresql"');

      expect((await checkDrift({ databaseUrl, schemaPath, migrationsDir })).inSync).toBe(true);
      expect(await createMigration('again', { databaseUrl, schemaPath, migrationsDir })).toEqual({
        migrationName: null,
        sql: null,
      });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

// Each test takes a schema of its own; cleanup() drops the database with them.
describe('applyMigrations', () => {
  it('applies every migration once into a fresh schema, from two concurrent processes and again', async () => {
    const schema = uniqueSchema('migrate_test');
    const url = urlWithSchema(schema);
    const expected = await migrationNames();
    expect(expected.length).toBeGreaterThan(0);

    const runs = await Promise.all([runMigrateCli(url), runMigrateCli(url)]);
    const again = await runMigrateCli(url);
    expect(again.stdout).toContain('No pending migrations');
    // Exactly one of the concurrent processes applied the migrations.
    expect(runs.filter((r) => r.stdout.includes('Applied to schema')).length).toBe(1);

    const rows = await sql<{ migration_name: string; finished: boolean; rolled_back: boolean; steps: number }>(
      `SELECT migration_name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back,
              applied_steps_count AS steps
         FROM ${quoteIdent(schema)}._prisma_migrations ORDER BY migration_name`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(expected);
    expect(rows.every((r) => r.finished && !r.rolled_back && r.steps === 1)).toBe(true);

    const tables = await sql<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
      [schema],
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['_prisma_migrations', 'organizations']));
  });

  it('runs each migration whole: semicolons in strings and bodies survive, a failing one leaves nothing', async () => {
    const schema = uniqueSchema('migrate_sql');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'weft-migrations-'));
    try {
      const write = async (name: string, script: string) => {
        await fs.mkdir(path.join(dir, name));
        await fs.writeFile(path.join(dir, name, MIGRATION_FILE), script);
      };
      await fs.copyFile(path.join(MIGRATIONS_DIR, LOCKFILE), path.join(dir, LOCKFILE));
      await write(
        '20000101000000_semicolons',
        `-- a comment; with a semicolon
CREATE TABLE notes (id INT PRIMARY KEY, body TEXT NOT NULL DEFAULT 'a;b');
CREATE FUNCTION one() RETURNS INT AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql;
`,
      );
      expect(await applyMigrations(urlWithSchema(schema), { migrationsDir: dir })).toEqual({
        schema,
        applied: ['20000101000000_semicolons'],
      });
      const [row] = await sql<{ one: number }>(`SELECT ${quoteIdent(schema)}.one() AS one`);
      expect(row?.one).toBe(1);

      await write('20000102000000_broken', 'CREATE TABLE half (id INT);\nSELECT nope FROM missing_table;\n');
      await expect(applyMigrations(urlWithSchema(schema), { migrationsDir: dir })).rejects.toThrow();
      const [half] = await sql<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [`${schema}.half`]);
      expect(half?.t).toBeNull();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('goes to MIGRATION_DATABASE_URL when DATABASE_URL leads through PgBouncer, and refuses the bouncer itself', async () => {
    const schema = uniqueSchema('migrate_pgb');
    const throughBouncer = urlWithSchema(schema, env.pgbouncerDatabaseUrl);
    await expect(applyMigrations(throughBouncer)).rejects.toThrow(
      /PgBouncer \(pgbouncer=true\).*Set MIGRATION_DATABASE_URL to the PostgreSQL server itself/,
    );
    const { stdout } = await runMigrateCli(throughBouncer, { MIGRATION_DATABASE_URL: urlWithSchema(schema) });
    expect(stdout).toContain(`Applied to schema "${schema}"`);
    const [row] = await sql<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [`${schema}.organizations`]);
    expect(row?.t).toBe(`${schema}.organizations`);
  });

  it('takes the schema from the options, overriding the URL', async () => {
    const schema = uniqueSchema('migrate_opt');
    const first = await applyMigrations(urlWithSchema('public'), { schema });
    expect(first).toEqual({ schema, applied: await migrationNames() });
    expect(await applyMigrations(urlWithSchema(schema))).toEqual({ schema, applied: [] });
  });
});
