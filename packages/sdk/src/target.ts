import type { WeftCore } from './core';
import { WeftApiError, WeftError } from './errors';
import type { RunKind } from './types';

// What a run's target names: an agent or an app, by id or by name.

/** The agent or app a run is for. */
export interface Target {
  kind: RunKind;
  id: string;
  name: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An id is looked up as an agent, then as an app. A name must match one agent
 * or app exactly (letter case aside) among the caller organization's own and
 * the public ones; several matches are an error that lists them.
 */
export async function resolveTarget(
  client: WeftCore,
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
