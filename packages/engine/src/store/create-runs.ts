import type { RunInput, WebhookEvent } from '@weft/contracts';
import { isRefusedData, violatesUniqueIndex } from '@weft/db';
import { ExternalIdConflictError, invalid } from '@weft/errors';
import type { Pool, PoolClient } from 'pg';
import { uuidv7 } from '@weft/db';
import { DELIVERY_COLUMNS, webhookTargetsSql } from './webhook-events';
import type { LoadedVersion } from '@weft/catalog';
import { NODE, RUN } from '@weft/dag';

export interface StartRunInput {
  organizationId: string;
  kind: 'agent' | 'app';
  agentId: string;
  agentVersionId: string;
  appId: string | null;
  externalId: string | undefined;
  /** As given by the caller (already validated): stored and echoed on the record. */
  inputs: RunInput[];
  estimatedCost: number;
  /** The run's own webhook and the events it asks for (docs/api.md#webhooks). */
  webhook?: { url: string; events: WebhookEvent[] } | undefined;
}

/** The only unique index the create statement can violate: runs' (organization_id, external_id). */
const EXTERNAL_ID_INDEX = 'runs_organization_id_external_id_key';

/** A run about to be written: its ids chosen, its node rows laid out. */
export interface PreparedRun {
  input: StartRunInput;
  id: string;
  version: LoadedVersion;
  nodeIds: string[];
  roots: Set<string>;
  firstRoot: string | undefined;
  insufficient: string;
}

export interface CreatedRow {
  id: string;
  created_at: Date;
  completed_at: Date | null;
  funded: boolean;
  /** Whether the run has webhook targets: its events are recorded (webhook-events.ts), this one's start already. */
  has_webhooks: boolean;
}

/**
 * One statement, committed on its own, writes runs of one organization: it
 * reserves their estimated costs together (a guarded UPDATE of the
 * organization's row, a ledger line per run) and inserts the runs and their
 * node rows, roots already dispatched (docs/api.md#credits). The reservation first
 * adds the credits settled runs gave back since the last one (pending_credits,
 * ADR 0011), and deletes those rows only when it succeeds: the guard sees the
 * whole balance, and each row is added once.
 *
 * One run without the credits is written as failed with `insufficient_credits`
 * and no nodes. Several runs are written all funded or not at all: then
 * nothing is written and this answers [], for the caller to write them one by
 * one. A reused external_id violates the unique index, which aborts the whole
 * statement, reservation included: nothing is claimed or charged.
 *
 * The start of each run with webhook targets (its own webhook, or endpoints of
 * its organization) is recorded for them in the same statement, with its end
 * when it failed at once (webhook-events.ts).
 *
 * One statement rather than a transaction: every run of an organization
 * updates its one row, and a row lock is held until COMMIT; here only while
 * PostgreSQL finishes the statement and flushes the commit (ADR 0009).
 */
export async function writeRuns(db: Pick<PoolClient, 'query'>, runs: PreparedRun[]): Promise<CreatedRow[]> {
  const nodes = runs.flatMap((r) =>
    r.nodeIds.map((id) => ({
      id: uuidv7(),
      runId: r.id,
      nodeId: id,
      type: r.version.graph.node(id)!.type,
      status: r.roots.has(id) ? NODE.running : NODE.pending,
    })),
  );
  const { rows } = await db.query<CreatedRow>({
    name: 'engine_create_runs_v3',
    text: `WITH pending AS (
             SELECT id, amount FROM pending_credits WHERE organization_id = $2 AND $3::bigint > 0 FOR UPDATE
           ), reserved AS (
             UPDATE organizations SET credits = credits + (SELECT COALESCE(sum(amount), 0) FROM pending) - $3::bigint
              WHERE id = $2 AND $3::bigint > 0 AND credits + (SELECT COALESCE(sum(amount), 0) FROM pending) >= $3::bigint
             RETURNING id
           ), applied AS (
             DELETE FROM pending_credits WHERE id IN (SELECT id FROM pending) AND EXISTS (SELECT 1 FROM reserved)
           ), funded AS (
             SELECT ($3::bigint = 0 OR EXISTS (SELECT 1 FROM reserved)) AS ok
           ), batch AS (
             SELECT * FROM unnest($1::uuid[], $4::"RunKind"[], $5::uuid[], $6::uuid[], $7::uuid[], $8::text[],
                                  $9::jsonb[], $10::int[], $11::text[], $12::text[], $13::uuid[], $19::text[], $20::text[])
                      AS t(id, kind, agent_id, version_id, app_id, external_id, inputs, cost, current_node,
                           insufficient, ledger_id, webhook, webhook_events)
           ), run AS (
             INSERT INTO runs (id, organization_id, kind, agent_id, agent_version_id, app_id, external_id, inputs,
                               reserved_credits, current_node, status, failure_reason, error, cost, completed_at,
                               created_at, updated_at, webhook, webhook_events, has_webhooks)
             SELECT t.id, $2, t.kind, t.agent_id, t.version_id, t.app_id, t.external_id, t.inputs,
                    CASE WHEN ok THEN t.cost ELSE 0 END, CASE WHEN ok THEN t.current_node END,
                    CASE WHEN ok THEN '${RUN.inProgress}' ELSE '${RUN.failed}' END::"RunStatus",
                    CASE WHEN ok THEN NULL ELSE 'insufficient_credits' END::"FailureReason",
                    CASE WHEN ok THEN NULL ELSE t.insufficient END, CASE WHEN ok THEN NULL ELSE 0 END,
                    CASE WHEN ok THEN NULL ELSE now() END, now(), now(),
                    t.webhook, string_to_array(t.webhook_events, ',')::"WebhookEvent"[],
                    t.webhook IS NOT NULL OR EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.organization_id = $2)
               FROM batch t, funded
              WHERE ok OR cardinality($1::uuid[]) = 1
             RETURNING id, organization_id, created_at, completed_at, status, webhook, webhook_events, has_webhooks
           ), hooks AS (
             INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
             SELECT gen_random_uuid(), $2, x.id, t.endpoint_id, t.url, ev.event, 0, NULL, NULL
               FROM run x
               CROSS JOIN LATERAL (SELECT 'start'::"WebhookEvent" AS event
                                   UNION ALL SELECT 'completed' WHERE x.status = '${RUN.failed}') ev
               CROSS JOIN LATERAL (${webhookTargetsSql('x', 'ev.event')}) t
              WHERE x.has_webhooks
           ), ledger AS (
             INSERT INTO credit_ledger (id, organization_id, run_id, kind, amount, note)
             SELECT t.ledger_id, $2, t.id, 'reserve', -t.cost, 'estimated cost reserved'
               FROM batch t WHERE t.cost > 0 AND EXISTS (SELECT 1 FROM reserved)
           ), nodes AS (
             INSERT INTO node_executions (id, run_id, node_id, node_type, status, started_at)
             SELECT n.id, n.run_id, n.node_id, n.node_type, n.status, CASE WHEN n.status = '${NODE.running}' THEN now() END
               FROM unnest($14::uuid[], $15::uuid[], $16::text[], $17::text[], $18::"NodeStatus"[])
                    AS n(id, run_id, node_id, node_type, status)
              WHERE (SELECT ok FROM funded)
           )
           SELECT id, created_at, completed_at, status = '${RUN.inProgress}' AS funded, has_webhooks FROM run`,
    values: [
      runs.map((r) => r.id),
      runs[0]!.input.organizationId,
      // A bigint in SQL: the costs of a batch can add up past a balance's integer range (and then it is refused).
      runs.reduce((sum, r) => sum + r.input.estimatedCost, 0),
      runs.map((r) => r.input.kind),
      runs.map((r) => r.input.agentId),
      runs.map((r) => r.input.agentVersionId),
      runs.map((r) => r.input.appId),
      runs.map((r) => r.input.externalId ?? null),
      runs.map((r) => JSON.stringify(r.input.inputs)),
      runs.map((r) => r.input.estimatedCost),
      runs.map((r) => (r.firstRoot ? r.version.graph.node(r.firstRoot)!.type : null)),
      runs.map((r) => r.insufficient),
      runs.map(() => uuidv7()),
      nodes.map((n) => n.id),
      nodes.map((n) => n.runId),
      nodes.map((n) => n.nodeId),
      nodes.map((n) => n.type),
      nodes.map((n) => n.status),
      runs.map((r) => r.input.webhook?.url ?? null),
      runs.map((r) => r.input.webhook?.events.join(',') ?? null),
    ],
  });
  return rows;
}

/**
 * writeRuns for one run, with a reused external_id answered as the 409 that
 * names the run holding it, and values the database refuses as a 422: the
 * gateway's checks refuse what they know of first, with a `loc` naming the value.
 */
export async function writeRun(pool: Pool, db: Pick<PoolClient, 'query'>, run: PreparedRun): Promise<CreatedRow> {
  let created: CreatedRow;
  try {
    [created] = (await writeRuns(db, [run])) as [CreatedRow];
  } catch (err) {
    if (isRefusedData(err)) throw refusedRun(err);
    if (!violatesUniqueIndex(err, EXTERNAL_ID_INDEX)) throw err;
    const existing = await pool.query<{ id: string }>({
      name: 'engine_run_by_external_id_v1',
      text: 'SELECT id FROM runs WHERE organization_id = $1 AND external_id = $2',
      values: [run.input.organizationId, run.input.externalId],
    });
    throw new ExternalIdConflictError(existing.rows[0]?.id ?? run.id);
  }
  return created;
}

function refusedRun(err: unknown) {
  // PostgreSQL's message and detail say what was wrong with the value (out of range, not valid
  // Unicode), never where the database is or what else it holds.
  const { message, detail } = err as { message: string; detail?: string };
  return invalid(['body'], `The database refused this run's data: ${message}${detail ? ` (${detail})` : ''}`);
}
