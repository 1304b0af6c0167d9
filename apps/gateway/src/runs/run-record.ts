import type { RunKindName } from '@weft/engine';
import type { Run } from '@weft/contracts';
import type { RunKind, RunOf } from './run-kind';

/** The fields of a run record both kinds show, in the order records show them. */
export type SharedRunFields = Omit<Run, 'id' | 'agent_id' | 'agent_version'>;

/** A run's record as its kind shows it: id, what it executes, the shared fields, and for agent runs the version. */
export function runRecord<K extends RunKindName>(
  kind: RunKind<K>,
  id: string,
  catalogId: string,
  fields: SharedRunFields,
  agentVersion: number,
): RunOf<K> {
  return {
    id,
    [kind.catalogField]: catalogId,
    ...fields,
    ...(kind.showsVersion ? { agent_version: agentVersion } : {}),
  } as RunOf<K>;
}
