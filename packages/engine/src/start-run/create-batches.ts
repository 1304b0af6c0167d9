import { isDatabaseUnavailable } from '@weft/db';
import type { Pool } from 'pg';
import { writeRun, writeRuns, type PreparedRun } from '../store/create-runs';
import { startedRun, type StartedRun } from './start-run';

/** Most runs one create statement writes. */
const MAX_BATCH = 64;

interface Waiting {
  run: PreparedRun;
  resolve(started: StartedRun): void;
  reject(err: unknown): void;
}

async function settle(waiting: Waiting, write: () => Promise<StartedRun>): Promise<void> {
  try {
    waiting.resolve(await write());
  } catch (err) {
    waiting.reject(err);
  }
}

/**
 * Group commit for run creation. Every run of an organization reserves from
 * its one balance row, so the creates of one organization serialise on that
 * row however many connections send them (ADR 0009). Here the creates of an
 * organization that arrive while its previous create statement is in flight
 * wait for it, then go together in one statement: one reservation, one
 * commit. A create that finds none in flight goes at once, so a quiet
 * organization waits for nothing.
 *
 * A batch is written all funded or not at all. When the balance does not
 * cover it whole, nothing was written, and its runs are written one by one,
 * in arrival order: each is then funded or failed on its own. When the
 * statement fails (a reused external_id, a value the database refuses),
 * nothing was written either, and its halves are written in turn, and so on
 * down to the run at fault, which alone gets the error (409 for the key, 422
 * for its data): one such run among 64 costs about 13 statements, not 64.
 * Only a database that cannot be reached fails the batch whole.
 */
export class CreateBatches {
  /** Organizations with a statement in flight, and the creates waiting for it. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(private readonly pool: Pool) {}

  create(run: PreparedRun): Promise<StartedRun> {
    return new Promise((resolve, reject) => {
      const org = run.input.organizationId;
      const queue = this.waiting.get(org);
      if (queue) {
        queue.push({ run, resolve, reject });
        return;
      }
      this.waiting.set(org, []);
      void this.flush(org, [{ run, resolve, reject }]);
    });
  }

  private async flush(org: string, batch: Waiting[]): Promise<void> {
    try {
      await this.write(batch);
    } finally {
      const queue = this.waiting.get(org)!;
      if (queue.length === 0) this.waiting.delete(org);
      else void this.flush(org, queue.splice(0, MAX_BATCH));
    }
  }

  private async write(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) {
      await settle(batch[0]!, async () =>
        startedRun(batch[0]!.run, await writeRun(this.pool, this.pool, batch[0]!.run)),
      );
      return;
    }
    let rows;
    try {
      rows = await writeRuns(
        this.pool,
        batch.map((w) => w.run),
      );
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      // One of them reuses an external_id, or holds a value the database refuses: nothing was written.
      const half = Math.ceil(batch.length / 2);
      await this.write(batch.slice(0, half));
      await this.write(batch.slice(half));
      return;
    }
    if (rows.length === batch.length) {
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (const w of batch) w.resolve(startedRun(w.run, byId.get(w.run.id)!));
      return;
    }
    // Not enough credits for all of them: nothing was written.
    for (const w of batch) await settle(w, async () => startedRun(w.run, await writeRun(this.pool, this.pool, w.run)));
  }
}
