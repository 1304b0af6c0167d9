import { runRecord as recordOfKind, type RunKindName, type SharedRunFields } from '@weft/engine';
import type { RunKind, RunOf } from './run-kind';

export type { SharedRunFields };

/** A run's record as its kind shows it (the engine's runRecord, typed for the kind). */
export function runRecord<K extends RunKindName>(
  kind: RunKind<K>,
  id: string,
  catalogId: string,
  fields: SharedRunFields,
  agentVersion: number,
): RunOf<K> {
  return recordOfKind(kind.name, id, catalogId, fields, agentVersion) as RunOf<K>;
}
