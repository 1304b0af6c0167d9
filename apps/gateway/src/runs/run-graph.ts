import type { RunGraph } from '@weft/contracts';
import type { LoadedVersion } from '@weft/catalog';
import { readRunNodes, type NodeStateRow, type RunKindName } from '@weft/engine';
import { NotFoundError } from '@weft/errors';
import type { RunDeps, RunKind } from './run-kind';

type GraphNode = RunGraph['nodes'][number];

const iso = (at: string | null) => (at === null ? null : new Date(at).toISOString());

/** A node's state from its row; a node the run has not reached has none and is pending. */
function stateOf(
  row: NodeStateRow | undefined,
): Pick<GraphNode, 'status' | 'started_at' | 'completed_at' | 'cost' | 'error'> {
  if (!row) return { status: 'pending', started_at: null, completed_at: null, cost: null, error: null };
  return {
    status: row.status as GraphNode['status'],
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    cost: row.cost,
    error: row.error,
  };
}

/** The nodes and edges of a loaded agent version; `comment` and `group` nodes are listed and take no edge. */
function graphOf({ flow, graph }: LoadedVersion, rows: NodeStateRow[]): RunGraph {
  const states = new Map(rows.map((row) => [row.node_id, row]));
  return {
    nodes: flow.nodes.map((node) => ({
      id: node.id,
      type: node.type,
      description: node.description ?? null,
      ...stateOf(states.get(node.id)),
    })),
    edges: flow.nodes.flatMap((node) =>
      graph.node(node.id)
        ? graph.inputLinks(node.id).map((link) => ({ from: link.node, to: node.id, port: link.port }))
        : [],
    ),
  };
}

/**
 * GET /runs/{id}/graph and /app-runs/{id}/graph: 404 exactly where GET of the
 * run is one. The node states are those of the moment it is read; a client
 * drawing a live run follows the event stream for what changes after.
 */
export async function getRunGraph<K extends RunKindName>(
  kind: RunKind<K>,
  { db, engine }: Pick<RunDeps, 'db' | 'engine'>,
  orgId: string,
  runId: string,
): Promise<RunGraph> {
  const run = await readRunNodes(db.pool, orgId, runId, kind.name);
  if (!run) throw new NotFoundError('Run');
  return graphOf(await engine.versions.version(run.agentVersionId), run.nodes);
}
