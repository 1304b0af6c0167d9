import type { RunInput } from '@weft/contracts';
import type { Pool } from 'pg';
import type { NodeRow, RunRow } from './run-rows';

/** A run as an execution read it: its row at `run.version`, its inputs and its node rows. */
export interface RunSnapshot {
  run: RunRow;
  inputs: RunInput[];
  nodes: NodeRow[];
}

const COLUMNS = `r.id, r.organization_id, r.kind, r.agent_id, r.agent_version_id, r.app_id, r.status,
       r.reserved_credits, r.version, r.has_webhooks, r.inputs,
       (SELECT json_agg(json_build_object('node_id', n.node_id, 'node_type', n.node_type, 'status', n.status,
                                          'attempt', n.attempt, 'cost', n.cost, 'output', n.output))
          FROM node_executions n WHERE n.run_id = r.id) AS nodes`;
// One id is a primary-key equality, which a generic plan (planned once per connection, from the
// statistics of that moment) serves from the index at any table size. Several come in a group and
// go through a pool whose statements are planned for their parameters (ADR 0014).
const READ_ONE = { name: 'engine_read_run_v2', text: `SELECT ${COLUMNS} FROM runs r WHERE r.id = $1` };
const READ_MANY = {
  name: 'engine_read_runs_v2',
  text: `SELECT ${COLUMNS} FROM unnest($1::uuid[]) AS q(id) JOIN runs r ON r.id = q.id`,
};

/**
 * Runs and their node rows in one round trip, in the order of `runIds`
 * (undefined for a run that does not exist): once per queued node, and for
 * a worker's concurrent jobs together (grouped-calls.ts).
 */
export async function readRuns(pool: Pool, runIds: string[]): Promise<(RunSnapshot | undefined)[]> {
  const { rows } = await pool.query<RunRow & { inputs: RunInput[]; nodes: NodeRow[] | null }>(
    runIds.length === 1 ? { ...READ_ONE, values: [runIds[0]] } : { ...READ_MANY, values: [runIds] },
  );
  const byId = new Map(
    rows.map(({ inputs, nodes, ...run }) => [run.id, { run, inputs, nodes: nodes ?? [] } satisfies RunSnapshot]),
  );
  // A fresh copy for each: two jobs of one run in one group must not share their rows.
  return runIds.map((id) => {
    const found = byId.get(id);
    return found && { run: { ...found.run }, inputs: found.inputs, nodes: found.nodes.map((n) => ({ ...n })) };
  });
}
