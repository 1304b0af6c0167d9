import type { WaitOptions, WeftClient } from './client';
import { WeftApiError, WeftError } from './errors';
import { inputUploadKey, prepareInputs, type RunInputs } from './inputs';
import type { AnyRun, RunKind } from './types';

// client.run(): find the agent or app, upload the files among the inputs,
// start the run (or find the one its external_id already started), follow it
// to its end.

export interface RunOptions extends WaitOptions {
  /**
   * Idempotency key of the run (1 to 255 characters). Running again with the
   * same key follows the run it started instead of starting another, and reuses
   * the files uploaded for it.
   */
  externalId?: string;
  /** What `target` names when a name could be an agent's or an app's. */
  kind?: RunKind;
  /** Called once the run exists: `created` is false when the external_id led to an existing run. */
  onCreated?: (run: AnyRun, info: { created: boolean; target: Target }) => void | Promise<void>;
  /** False: resolve as soon as the run is created, without following it. */
  wait?: boolean;
  /** True: aborting `signal` also cancels the run (by default it only stops the wait). */
  cancelOnAbort?: boolean;
}

/** The agent or app a run is for. */
export interface Target {
  kind: RunKind;
  id: string;
  name: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function runVerb(
  client: WeftClient,
  targetName: string,
  inputs: RunInputs,
  options: RunOptions,
): Promise<AnyRun> {
  const { signal, externalId } = options;
  const target = await resolveTarget(client, targetName, options.kind, signal);
  const prepared = await prepareInputs(inputs, (source, inputId, index) =>
    client.upload(source, {
      signal,
      ...(externalId ? { externalId: inputUploadKey(externalId, inputId, index) } : {}),
    }),
  );
  const common = { inputs: prepared, ...(externalId ? { external_id: externalId } : {}) };
  const { run, created } =
    target.kind === 'app'
      ? await client.appRuns.create({ app_id: target.id, ...common }, { signal })
      : await client.runs.create({ agent_id: target.id, ...common }, { signal });
  await options.onCreated?.(run, { created, target });
  if (options.wait === false) return run;
  try {
    return await client.wait(run, options);
  } catch (err) {
    if (options.cancelOnAbort && signal?.aborted) await client.cancel(run);
    throw err;
  }
}

/**
 * An id is looked up as an agent, then as an app. A name must match one agent
 * or app exactly (letter case aside) among the caller organization's own and
 * the public ones; several matches are an error that lists them.
 */
export async function resolveTarget(
  client: WeftClient,
  target: string,
  kind?: RunKind,
  signal?: AbortSignal,
): Promise<Target> {
  if (UUID.test(target)) {
    for (const k of kind ? [kind] : (['agent', 'app'] as const)) {
      try {
        const found =
          k === 'agent' ? await client.agents.get(target, { signal }) : await client.apps.get(target, { signal });
        return { kind: k, id: found.id, name: found.name };
      } catch (err) {
        if (!(err instanceof WeftApiError && err.status === 404)) throw err;
      }
    }
    throw new WeftError(`No ${kind ?? 'agent or app'} with id ${target} is visible to this organization`);
  }
  const wanted = target.toLowerCase();
  const matches = new Map<string, Target>();
  const search = target.slice(0, 200);
  for (const visibility of [undefined, ['public' as const]]) {
    if (kind !== 'app') {
      for await (const agent of client.agents.list({ search, ...(visibility ? { visibility } : {}) }, { signal })) {
        if (agent.name.toLowerCase() === wanted)
          matches.set(agent.id, { kind: 'agent', id: agent.id, name: agent.name });
      }
    }
    if (kind !== 'agent') {
      for await (const app of client.apps.list({ search, ...(visibility ? { visibility } : {}) }, { signal })) {
        if (app.name.toLowerCase() === wanted) matches.set(app.id, { kind: 'app', id: app.id, name: app.name });
      }
    }
  }
  const found = [...matches.values()];
  if (found.length === 1) return found[0]!;
  if (found.length === 0)
    throw new WeftError(`No ${kind ?? 'agent or app'} named "${target}" is visible to this organization`);
  throw new WeftError(
    `"${target}" names several: ${found.map((t) => `${t.kind} ${t.id}`).join(', ')}; give the id instead`,
  );
}
