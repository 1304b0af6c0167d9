import { dropTemplateDatabase } from './template-database';

// jest's globalTeardown: drops the run's template and stops whatever
// globalSetup started (services that were already running, or given by URL,
// are left alone).
export default async function globalTeardown(): Promise<void> {
  const run = globalThis.__weftTestRun;
  globalThis.__weftTestRun = undefined;
  if (!run) return;
  try {
    await dropTemplateDatabase(run.stack.adminDatabaseUrl, run.templateDatabase);
  } finally {
    await run.stack.stop();
  }
}
