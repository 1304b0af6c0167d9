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
 * An id is looked up as an agent, then as an app. A name (letter case aside)
 * is looked up first among the caller organization's own agents and apps,
 * then among other organizations' public ones: your own wins over another's
 * public one of the same name. Two matches in the same tier are an error that
 * lists them and says whose they are.
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
  const own = await named(client, target, kind, { owned: true }, signal);
  if (own.length === 1) return own[0]!;
  if (own.length > 1) throw several(target, own, 'yours');
  // A public one of the caller's own would have matched above: these are other organizations'.
  const others = await named(client, target, kind, { visibility: ['public'] }, signal);
  if (others.length === 1) return others[0]!;
  if (others.length > 1) throw several(target, others, 'public, another organization');
  throw new WeftError(`No ${kind ?? 'agent or app'} named "${target}" is visible to this organization`);
}

type Tier = { owned: true } | { visibility: ['public'] };

async function named(
  client: WeftCore,
  target: string,
  kind: RunKind | undefined,
  tier: Tier,
  signal: AbortSignal | undefined,
): Promise<Target[]> {
  const wanted = target.toLowerCase();
  const query = { search: target.slice(0, 200), ...tier };
  const found: Target[] = [];
  if (kind !== 'app') {
    for await (const agent of client.agents.list(query, { signal })) {
      if (agent.name.toLowerCase() === wanted) found.push({ kind: 'agent', id: agent.id, name: agent.name });
    }
  }
  if (kind !== 'agent') {
    for await (const app of client.apps.list(query, { signal })) {
      if (app.name.toLowerCase() === wanted) found.push({ kind: 'app', id: app.id, name: app.name });
    }
  }
  return found;
}

function several(target: string, found: Target[], whose: string): WeftError {
  const listed = found.map((t) => `${t.kind} ${t.id} (${whose})`).join(', ');
  return new WeftError(`"${target}" names several: ${listed}; give the id instead`);
}
