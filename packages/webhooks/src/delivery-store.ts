import type { AppRun, Run, WebhookEvent } from '@weft/contracts';
import type { NodeStatus } from '@weft/dag';
import { isDatabaseUnavailable } from '@weft/db';
import { GroupedCalls, readRunRecords, type RunRef } from '@weft/engine';
import type { DeliverWebhookJob } from '@weft/queue';
import type { Pool } from 'pg';

// The statements of the delivery path, each grouped across the attempts a
// worker makes at once: with 100 attempts in flight, a worker sends a handful
// of statements per group instead of four per attempt. PostgreSQL's cost per
// statement (and the worker's, a write on the socket each) is what bounded
// deliveries per second, not the rows.

export interface DueDelivery {
  id: string;
  organization_id: string;
  run_id: string;
  endpoint_id: string | null;
  event: WebhookEvent;
  node_id: string | null;
  node_status: NodeStatus | null;
  attempts: number;
  schedule_start: number;
  body: string | null;
  created_at: Date;
  url: string;
  /** The sealed signing secret: the endpoint's, or for a run's own webhook the organization's (null until made). */
  key_version: number | null;
  sealed: Buffer | null;
}

export interface AttemptRecord {
  deliveryId: string;
  /** Attempts made before this one: the record applies only while the delivery still says so. */
  attemptsBefore: number;
  at: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  status: 'pending' | 'succeeded' | 'failed';
  /** Until the next attempt (pending only). */
  delayMs: number | null;
}

const DUE = {
  name: 'webhooks_due_deliveries_v1',
  text: `SELECT d.id, d.organization_id, d.run_id, d.endpoint_id, d.event, d.node_id, d.node_status, d.attempts,
                d.schedule_start, d.body, d.created_at, COALESCE(d.url, e.url) AS url,
                COALESCE(e.key_version, o.key_version) AS key_version, COALESCE(e.sealed, o.sealed) AS sealed
           FROM webhook_deliveries d
           JOIN unnest($1::uuid[], $2::int[]) AS job(id, attempts) ON d.id = job.id AND d.attempts = job.attempts
           LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
           LEFT JOIN organization_webhook_secrets o ON d.endpoint_id IS NULL AND o.organization_id = d.organization_id
          WHERE d.status = 'pending'`,
};

const STORE_BODIES = {
  name: 'webhooks_store_bodies_v1',
  text: `UPDATE webhook_deliveries d SET body = COALESCE(d.body, built.body)
           FROM unnest($1::uuid[], $2::text[]) AS built(id, body)
          WHERE d.id = built.id
      RETURNING d.id, d.body`,
};

const RECORD_ATTEMPTS = {
  name: 'webhooks_record_attempts_v1',
  text: `WITH made AS (
           SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::text[], $6::int[],
                                $7::"WebhookDeliveryStatus"[], $8::int[])
                      AS made(id, attempts, at, status_code, error, duration_ms, status, delay_ms)
         ), attempt AS (
           INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, error, duration_ms)
           SELECT made.id, made.attempts + 1, made.at, made.status_code, made.error, made.duration_ms
             FROM made WHERE EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = made.id)
           ON CONFLICT DO NOTHING
         )
         UPDATE webhook_deliveries d
            SET attempts = made.attempts + 1, status = made.status,
                next_attempt_at = CASE WHEN made.delay_ms IS NULL THEN NULL
                                       ELSE now() + make_interval(secs => made.delay_ms / 1000.0) END
           FROM made
          WHERE d.id = made.id AND d.attempts = made.attempts AND d.status = 'pending'
      RETURNING d.id`,
};

/** Most attempts in one statement. */
const GROUP_MAX = 100;
/** A group that failed because the database is away fails whole; any other failure is narrowed down to its input. */
const retryApart = (err: unknown) => !isDatabaseUnavailable(err);
const byDelivery = <T extends { deliveryId: string }>(input: T) => input.deliveryId;

export class DeliveryStore {
  private readonly due: GroupedCalls<DeliverWebhookJob, DueDelivery | undefined>;
  private readonly runs: GroupedCalls<RunRef, Run | AppRun | undefined>;
  private readonly bodies: GroupedCalls<{ deliveryId: string; body: string }, string | undefined>;
  private readonly attempts: GroupedCalls<AttemptRecord, boolean>;

  constructor(readonly pool: Pool) {
    this.due = new GroupedCalls({
      call: async (jobs) => {
        const { rows } = await pool.query<DueDelivery>({
          ...DUE,
          values: [jobs.map((j) => j.deliveryId), jobs.map((j) => j.attempt)],
        });
        const found = new Map(rows.map((d) => [d.id, d]));
        return jobs.map((j) => found.get(j.deliveryId));
      },
      max: GROUP_MAX,
      key: byDelivery,
      retryApart,
    });
    this.runs = new GroupedCalls({ call: (refs) => readRunRecords(pool, refs), max: GROUP_MAX, retryApart });
    this.bodies = new GroupedCalls({
      call: async (built) => {
        const { rows } = await pool.query<{ id: string; body: string }>({
          ...STORE_BODIES,
          values: [built.map((b) => b.deliveryId), built.map((b) => b.body)],
        });
        const stored = new Map(rows.map((r) => [r.id, r.body]));
        return built.map((b) => stored.get(b.deliveryId));
      },
      max: GROUP_MAX,
      key: byDelivery,
      retryApart,
    });
    this.attempts = new GroupedCalls({
      call: async (made) => {
        const { rows } = await pool.query<{ id: string }>({
          ...RECORD_ATTEMPTS,
          values: [
            made.map((m) => m.deliveryId),
            made.map((m) => m.attemptsBefore),
            made.map((m) => m.at),
            made.map((m) => m.statusCode),
            made.map((m) => m.error),
            made.map((m) => m.durationMs),
            made.map((m) => m.status),
            made.map((m) => m.delayMs),
          ],
        });
        const applied = new Set(rows.map((r) => r.id));
        return made.map((m) => applied.has(m.deliveryId));
      },
      max: GROUP_MAX,
      key: byDelivery,
      retryApart,
    });
  }

  /** The delivery `job` names, when its attempt is still the one to make (pending, that many attempts made). */
  dueDelivery(job: DeliverWebhookJob): Promise<DueDelivery | undefined> {
    return this.due.submit(job);
  }

  runRecord(ref: RunRef): Promise<Run | AppRun | undefined> {
    return this.runs.submit(ref);
  }

  /** Stores a body unless the delivery has one already; the body that is stored (undefined: no such delivery). */
  storeBody(deliveryId: string, body: string): Promise<string | undefined> {
    return this.bodies.submit({ deliveryId, body });
  }

  /** Records an attempt and what comes next; false when another attempt got there first. */
  recordAttempt(record: AttemptRecord): Promise<boolean> {
    return this.attempts.submit(record);
  }
}
