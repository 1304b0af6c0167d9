import type { WeftClient } from './client';
import type { WaitOptions } from './core';
import { inputUploadKey, prepareInputs, type RunInputs } from './inputs';
import { resolveTarget, type Target } from './target';
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
