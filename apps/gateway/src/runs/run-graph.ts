import type { RunGraph } from '@weft/contracts';
import { readRunVersionId, type LoadedVersion, type RunKindName } from '@weft/engine';
import { NotFoundError } from '@weft/errors';
import type { RunDeps, RunKind } from './run-kind';

/** The nodes and edges of a loaded agent version; `comment` and `group` nodes are listed and take no edge. */
function graphOf({ flow, graph }: LoadedVersion): RunGraph {
  return {
    nodes: flow.nodes.map((node) => ({ id: node.id, type: node.type, description: node.description ?? null })),
    edges: flow.nodes.flatMap((node) =>
      graph.node(node.id)
        ? graph.inputLinks(node.id).map((link) => ({ from: link.node, to: node.id, port: link.port }))
        : [],
    ),
  };
}

/** GET /runs/{id}/graph and /app-runs/{id}/graph: 404 exactly where GET of the run is one. */
export async function getRunGraph<K extends RunKindName>(
  kind: RunKind<K>,
  { db, engine }: Pick<RunDeps, 'db' | 'engine'>,
  orgId: string,
  runId: string,
): Promise<RunGraph> {
  const versionId = await readRunVersionId(db.pool, orgId, runId, kind.name);
  if (!versionId) throw new NotFoundError('Run');
  return graphOf(await engine.versions.version(versionId));
}
