import path from 'node:path';
import { ConfigError } from '@weft/config';
import { applyMigrations } from './apply';
import { MIGRATIONS_DIR, REPO_ROOT, migrationDatabaseUrl } from './config';
import { createMigration } from './diff';
import { checkDrift } from './drift';

// npm run db:migrate              apply prisma/migrations to MIGRATION_DATABASE_URL (default DATABASE_URL)
// npm run db:migration -- <name>  write a migration for what schema.prisma adds
// tsx packages/db/src/migrations/cli.ts check   exit 1 when the two disagree

const USAGE = 'usage: cli.ts migrate | create <name> | check';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const databaseUrl = migrationDatabaseUrl();
  const rel = path.relative(process.cwd(), MIGRATIONS_DIR) || path.relative(REPO_ROOT, MIGRATIONS_DIR);
  switch (command) {
    case 'migrate': {
      const { applied, schema } = await applyMigrations(databaseUrl);
      if (applied.length === 0) console.log(`No pending migrations (schema "${schema}").`);
      else console.log(`Applied to schema "${schema}":\n${applied.map((n) => `  ${n}`).join('\n')}`);
      return 0;
    }
    case 'create': {
      const name = rest.join(' ').trim();
      if (!name) {
        console.error(`A migration name is required: npm run db:migration -- <name>\n${USAGE}`);
        return 2;
      }
      const { migrationName } = await createMigration(name, { databaseUrl });
      if (migrationName === null) console.log('No changes: prisma/schema.prisma matches the migrations.');
      else console.log(`Created ${path.join(rel, migrationName, 'migration.sql')}`);
      return 0;
    }
    case 'check': {
      const { inSync, missingSql } = await checkDrift({ databaseUrl });
      if (inSync) {
        console.log('prisma/schema.prisma and the migrations agree.');
        return 0;
      }
      console.error(
        `prisma/schema.prisma differs from the migrations; a new migration would contain:\n\n${missingSql}`,
      );
      return 1;
    }
    default:
      console.error(USAGE);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  },
);
