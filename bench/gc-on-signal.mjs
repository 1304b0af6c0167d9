// Preloaded into the gateway by bench:events (node --expose-gc --import <this file>):
// SIGUSR2 runs a full collection, then writes process.memoryUsage() as JSON to
// the file BENCH_MEMORY_FILE names, so that the memory read next is what is
// live, not garbage waiting for the next collection. Plain JavaScript: the
// gateway it is loaded into runs from dist/, without tsx.
import { renameSync, writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  globalThis.gc();
  const file = process.env.BENCH_MEMORY_FILE;
  writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()));
  renameSync(`${file}.tmp`, file);
});
