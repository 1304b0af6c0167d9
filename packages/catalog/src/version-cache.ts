import type { AppOutput, Flow, FlowOutput } from '@weft/contracts';
import { FlowGraph } from '@weft/dag';
import type { Pool } from 'pg';

export interface LoadedVersion {
  flow: Flow;
  graph: FlowGraph;
  version: number;
}

/**
 * Agent versions are immutable (a run pins one), so each process keeps the
 * ones it has used and never reads them twice. Bounded by insertion order.
 */
export class VersionCache {
  private readonly versions = new Map<string, LoadedVersion>();
  private readonly appOutputs = new Map<string, AppOutput[]>();

  constructor(
    private readonly pool: Pool,
    private readonly max = 2000,
  ) {}

  async version(versionId: string): Promise<LoadedVersion> {
    const hit = this.versions.get(versionId);
    if (hit) return hit;
    const { rows } = await this.pool.query<{ flow: Flow; version: number }>({
      name: 'engine_load_version_v1',
      text: 'SELECT flow, version FROM agent_versions WHERE id = $1',
      values: [versionId],
    });
    const row = rows[0];
    if (!row) throw new Error(`Agent version ${versionId} not found`);
    const loaded = { flow: row.flow, graph: FlowGraph.of(row.flow), version: row.version };
    this.remember(this.versions, versionId, loaded);
    return loaded;
  }

  /** The curated outputs of an app. Apps have no update endpoint, so they are as immutable as versions. */
  async outputsOfApp(appId: string): Promise<AppOutput[]> {
    const hit = this.appOutputs.get(appId);
    if (hit) return hit;
    const { rows } = await this.pool.query<{ outputs: AppOutput[] }>({
      name: 'engine_load_app_outputs_v1',
      text: 'SELECT outputs FROM apps WHERE id = $1',
      values: [appId],
    });
    const outputs = rows[0]?.outputs ?? [];
    this.remember(this.appOutputs, appId, outputs);
    return outputs;
  }

  /** What a run reports as results: the app's outputs for app runs, flow.outputs for agent runs. */
  async resultSpec(versionId: string, appId: string | null): Promise<FlowOutput[]> {
    if (appId) return this.outputsOfApp(appId);
    return (await this.version(versionId)).flow.outputs ?? [];
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    if (map.size >= this.max) map.delete(map.keys().next().value as string);
    map.set(key, value);
  }
}
