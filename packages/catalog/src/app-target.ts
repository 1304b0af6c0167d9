import type { AppInput } from '@weft/contracts';
import { readableBySql, type Db } from '@weft/db';
import { BadRequestError, NotFoundError } from '@weft/errors';
import type { AgentTarget } from './agent-target';

/** What a run of an app executes: its agent at the active version, with the app's own input definitions. */
export interface AppTarget extends AgentTarget {
  appId: string;
  inputs: AppInput[];
}

const APP_FOR_RUN = {
  name: 'runs_app_for_run_v1',
  text: `SELECT p.agent_id, p.estimated_cost, p.inputs, a.active_version_id
             FROM apps p JOIN agents a ON a.id = p.agent_id
            WHERE p.id = $1 AND ${readableBySql('$2', 'p')}`,
};

/**
 * The target of a run of `appId` by `orgId`: 404 when the app is not readable
 * (own, shared or public), 400 while its agent has no active version.
 */
export async function resolveAppTarget(db: Db, orgId: string, appId: string): Promise<AppTarget> {
  const { rows } = await db.pool.query<{
    agent_id: string;
    estimated_cost: number;
    inputs: AppInput[];
    active_version_id: string | null;
  }>({ ...APP_FOR_RUN, values: [appId, orgId] });
  const app = rows[0];
  if (!app) throw new NotFoundError('App');
  if (!app.active_version_id) throw new BadRequestError("The app's agent has no active version");
  return {
    agentId: app.agent_id,
    agentVersionId: app.active_version_id,
    appId,
    estimatedCost: app.estimated_cost,
    inputs: app.inputs,
  };
}
