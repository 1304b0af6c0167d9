import { removeAbandonedTestResources } from './janitor';
import { createTemplateDatabase } from './template-database';
import { newTemplateName } from './test-resource-names';
import { publishTestServices } from './test-services-env';
import { startTestStack, type TestStack } from './test-stack';

// jest's globalSetup: runs once per `jest` invocation in the parent process,
// before any test file. globalTeardown runs in the same process and finds what
// it must undo on globalThis.

export interface TestRun {
  stack: TestStack;
  templateDatabase: string;
}

declare global {
  var __weftTestRun: TestRun | undefined;
}

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const lines: string[] = [];
  const stack = await startTestStack(process.env, (line) => lines.push(line));
  const templateDatabase = newTemplateName();
  globalThis.__weftTestRun = { stack, templateDatabase };

  const applied = await createTemplateDatabase(stack.adminDatabaseUrl, templateDatabase);
  const services = {
    adminDatabaseUrl: stack.adminDatabaseUrl,
    templateDatabase,
    pgbouncerUrl: stack.pgbouncer.url,
    redisUrl: stack.redis.url,
    s3: stack.s3.settings,
  };
  const problems = await removeAbandonedTestResources(services);
  // Worker processes, started after this returns, inherit process.env.
  publishTestServices(services);

  const sources = `postgres=${stack.postgres.source} pgbouncer=embedded redis=${stack.redis.source} s3=${stack.s3.source}`;
  process.stderr.write(
    `\n[weft test services] ${sources}; ${templateDatabase} migrated (${applied.length} migrations) in ${Date.now() - started} ms\n`,
  );
  for (const line of [...lines, ...problems.map((p) => `janitor: ${p}`)]) process.stderr.write(`  ${line}\n`);
}
