/** The names a statement gives what the CTE reads. */
export interface OutputAssetsCteNames {
  /** The CTE's own name. */
  cte: string;
  /** A relation of the runs that apply, by `id` (the CTE writes nothing for the others). */
  runs: string;
  /** Parameters: uuid arrays of equal length, the run of each output asset and its id. */
  runIds: string;
  assetIds: string;
}

/**
 * A CTE that makes a completed run's result assets outputs: its own
 * intermediate assets among `assetIds`, no other run's. Text to compose into
 * a larger statement (the engine's one commit of a transition), so that the
 * change is written with the rest of it or not at all.
 */
export function markOutputAssetsCte({ cte, runs, runIds, assetIds }: OutputAssetsCteNames): string {
  return `${cte} AS (
    UPDATE assets a SET asset_type = 'output', updated_at = now()
      FROM ${runs} JOIN unnest(${runIds}::uuid[], ${assetIds}::uuid[]) AS o(run_id, id) ON o.run_id = ${runs}.id
     WHERE a.id = o.id AND a.run_id = o.run_id AND a.asset_type = 'intermediate'
  )`;
}
