import type { AppInput, AppRun, CreateAppRunBody, z } from '@weft/contracts';
import type { Db } from '@weft/db';
import type { Engine } from '@weft/engine';
import { BadRequestError, NotFoundError } from '@weft/errors';
import { checkRunInputs } from './check-run-inputs';
import type { EndedRunCache } from './ended-run-cache';
import { getAppRun } from './get-run';
import { startedAppRun } from './started-run';
import { appInputSpecs } from './input-specs';

export type CreateAppRunInput = z.output<typeof CreateAppRunBody>;

/**
 * POST /app-runs. The app must be readable by the caller (404 otherwise);
 * the run executes the app's agent at its active version. Inputs follow the
 * rules of interface.md 4.4 and a violation is a 400 naming each problem;
 * nothing is claimed until they pass.
 */
export async function createAppRun(
  db: Db,
  engine: Engine,
  endedRuns: EndedRunCache,
  orgId: string,
  body: CreateAppRunInput,
): Promise<AppRun> {
  const { rows } = await db.pool.query<{
    agent_id: string;
    estimated_cost: number;
    inputs: AppInput[];
    active_version_id: string | null;
  }>({
    name: 'runs_app_for_run_v1',
    text: `SELECT p.agent_id, p.estimated_cost, p.inputs, a.active_version_id
             FROM apps p JOIN agents a ON a.id = p.agent_id
            WHERE p.id = $1 AND (p.organization_id = $2 OR p.visibility IN ('shared', 'public'))`,
    values: [body.app_id, orgId],
  });
  const app = rows[0];
  if (!app) throw new NotFoundError('App');
  if (!app.active_version_id) throw new BadRequestError("The app's agent has no active version");

  const issues = await checkRunInputs(db, orgId, appInputSpecs(app.inputs), body.inputs);
  if (issues.length > 0) {
    throw new BadRequestError(`Invalid inputs: ${issues.map((i) => i.msg).join('; ')}`);
  }
  const started = await engine.startRun({
    organizationId: orgId,
    kind: 'app',
    agentId: app.agent_id,
    agentVersionId: app.active_version_id,
    appId: body.app_id,
    externalId: body.external_id,
    inputs: body.inputs,
    estimatedCost: app.estimated_cost,
  });
  return (
    startedAppRun(started, body.app_id, body.external_id, body.inputs) ?? getAppRun(db, endedRuns, orgId, started.id)
  );
}
