import { LRUCache } from 'lru-cache';
import type { RunKindName } from '@weft/engine';
import { RUN } from '@weft/dag';

/**
 * The records of ended runs, per gateway instance. A run that has ended
 * (completed, failed, canceled) never changes again: its record can be served
 * from memory without a database round trip and without any invalidation,
 * which is what clients polling `GET /runs/{id}` until the end, and reading
 * the result again afterwards, mostly ask for. Keyed by organization, kind
 * and id, so another organization's request (or the other kind's path) still
 * goes to the database and gets its 404.
 */
export class EndedRunCache {
  private readonly runs: LRUCache<string, object> | undefined;

  constructor(maxEntries: number) {
    this.runs = maxEntries > 0 ? new LRUCache<string, object>({ max: maxEntries }) : undefined;
  }

  get<T extends object>(kind: RunKindName, orgId: string, runId: string): T | undefined {
    return this.runs?.get(`${kind}:${orgId}:${runId}`) as T | undefined;
  }

  /** Remembers `run` if it has ended; a run in progress is always read afresh. */
  offer(kind: RunKindName, orgId: string, runId: string, run: { status: string }): void {
    if (run.status !== RUN.inProgress) this.runs?.set(`${kind}:${orgId}:${runId}`, Object.freeze(run));
  }
}
