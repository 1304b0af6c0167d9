import { quoteIdentifier, withDatabaseName } from '@weft/devstack';
import { applyMigrations } from '@weft/db';
import { dropDatabase, withAdminClient } from './test-resources';

/**
 * Creates the run's template database and applies every migration to it.
 * Each test file's database is a copy (CREATE DATABASE ... TEMPLATE), which
 * takes a fraction of a second where migrating would take seconds. Built anew
 * on every run, so a changed or new migration is always picked up.
 *
 * PostgreSQL refuses to copy a database anyone is connected to: nothing may
 * keep a connection to the template open after this returns.
 */
export async function createTemplateDatabase(adminDatabaseUrl: string, template: string): Promise<string[]> {
  await withAdminClient(adminDatabaseUrl, async (client) => {
    await dropDatabase(client, template, true);
    await client.query(`CREATE DATABASE ${quoteIdentifier(template)}`);
  });
  const { applied } = await applyMigrations(withDatabaseName(adminDatabaseUrl, template));
  return applied;
}

export async function dropTemplateDatabase(adminDatabaseUrl: string, template: string): Promise<void> {
  await withAdminClient(adminDatabaseUrl, (client) => dropDatabase(client, template, true));
}
