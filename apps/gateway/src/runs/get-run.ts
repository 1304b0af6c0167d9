import type { Db } from '@weft/db';
import { NotFoundError } from '@weft/errors';
import type { EndedRunCache } from './ended-run-cache';
import type { RunKind, RunOf } from './run-kind';
import { runRecord } from './run-record';
import { readRunRow, sharedRunFields, type RunKindName, type RunReadRow } from '@weft/engine';

// GET /runs/{id} and /app-runs/{id}: the hottest read of the service (clients
// poll it), one statement (readRunRow), and ended runs served from a cache.
// The runs' event streams (events/) send the same records.

/** The record of a run as GET shows it (and its event stream sends it). */
export function recordOf<K extends RunKindName>(kind: RunKind<K>, row: RunReadRow): RunOf<K> {
  return runRecord(kind, row.id, row[kind.catalogField]!, sharedRunFields(row), row.version);
}

/** A run of `kind` of `orgId`; 404 for runs of other organizations and of the other kind. */
export async function getRun<K extends RunKindName>(
  kind: RunKind<K>,
  db: Db,
  ended: EndedRunCache,
  orgId: string,
  runId: string,
): Promise<RunOf<K>> {
  const known = ended.get<RunOf<K>>(kind.name, orgId, runId);
  if (known) return known;
  const row = await readRunRow(db.pool, orgId, runId, kind.name);
  if (!row) throw new NotFoundError('Run');
  const run = recordOf(kind, row);
  ended.offer(kind.name, orgId, runId, run);
  return run;
}
