import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { publishFile } from '../publish';
import type { DevState } from './dev-state';

/**
 * Publishes `catalog/*.json` to the development organization with `weft
 * publish`'s publishFile (through the HTTP API, like any client). A file is
 * published again only when its content changed since the last time (hashes in
 * dev.json), so a restart does not post a new version of every agent. A file that fails is
 * reported and skipped: a broken example must not keep the stack from starting.
 */
export async function publishCatalog(
  baseUrl: string,
  apiKey: string,
  catalogDir: string,
  state: DevState,
  log: (line: string) => void,
): Promise<void> {
  for (const file of listCatalogFiles(catalogDir)) {
    const name = path.relative(path.dirname(catalogDir), file);
    const hash = createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    if (state.published[name] === hash) continue;
    try {
      const report = await publishFile(baseUrl, apiKey, file);
      state.published[name] = hash;
      log(`catalog: published ${name}`);
      for (const warning of report.warnings) log(`catalog: ${name}: ${warning}`);
    } catch (err) {
      log(`catalog: could not publish ${name}: ${(err as Error).message}`);
    }
  }
}

function listCatalogFiles(catalogDir: string): string[] {
  try {
    return fs
      .readdirSync(catalogDir)
      .filter((entry) => entry.endsWith('.json'))
      .sort()
      .map((entry) => path.join(catalogDir, entry));
  } catch {
    return [];
  }
}
