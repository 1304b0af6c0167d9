import { ensureS3 } from '@weft/devstack';

// s3rver in a process of its own for `npm run bench:assets`: in the bench's
// process it would share one event loop with the load generator and measure
// that contention instead of the store. Reports its settings over IPC.
async function main() {
  // A port of its own, never the default 9000, where a developer's store may run.
  const port = Number(process.env.S3_PORT);
  const s3 = await ensureS3({ dataDir: process.env.S3_DATA_DIR!, port, embeddedPort: port });
  process.send?.(s3.settings);
  const stop = () => void s3.stop().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
