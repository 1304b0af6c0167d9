import type { Agent, AgentSummary, App, AppSummary } from '@weft/contracts';
import { jsonEqual } from '@weft/dag';
import { createHttpClient, HttpError, type FetchFn, type HttpClient } from '../http-client';
import { readCatalogFile, type CatalogApp, type CatalogFile } from './catalog-file';

// `weft publish`: puts a catalog file's agent and apps into the caller
// organization, idempotently, so that the dev launcher can run it on every
// start:
// - the agent is found by exact name among the organization's own agents
//   (GET /agents?owned=true&search=<name>); missing → POST /agents (version 1);
//   present → POST /agents/{id}/versions, which the server turns into a no-op
//   when the flow equals the active version's;
// - each app is found by exact name among the organization's own apps bound
//   to that agent; missing → POST /apps; present → left alone.
// There is no update endpoint for an agent's or app's other fields yet: when
// they differ from the file, the report says so in `warnings`.

type Page<T> = { data: T[]; has_more: boolean; next_cursor: string | null };

export interface PublishReport {
  file?: string;
  agent: { id: string; name: string; action: 'created' | 'new_version' | 'unchanged'; version: number };
  apps: { id: string; name: string; action: 'created' | 'exists' }[];
  warnings: string[];
}

export interface PublishOptions {
  fetch?: FetchFn;
}

/** Publishes one catalog file with an organization's API key. Used by `weft publish` and the dev launcher. */
export async function publishFile(
  baseUrl: string,
  apiKey: string,
  file: string,
  options: PublishOptions = {},
): Promise<PublishReport> {
  const definition = readCatalogFile(file);
  const client = createHttpClient({ baseUrl, headers: { 'x-api-key': apiKey }, fetch: options.fetch });
  return { file, ...(await publishDefinition(client, definition)) };
}

export async function publishDefinition(client: HttpClient, def: CatalogFile): Promise<Omit<PublishReport, 'file'>> {
  const warnings: string[] = [];
  const agent = await publishAgent(client, def, warnings);
  const apps: PublishReport['apps'] = [];
  for (const app of def.apps) apps.push(await publishApp(client, agent.id, app, warnings));
  return { agent, apps, warnings };
}

async function publishAgent(client: HttpClient, def: CatalogFile, warnings: string[]): Promise<PublishReport['agent']> {
  const { apps: _apps, kind: _kind, ...body } = def;
  const matches = await findAllOwn<AgentSummary>(client, '/agents', def.name);
  const existing = matches[0];
  if (matches.length > 1) {
    warnings.push(`${matches.length} agents are named '${def.name}'; publishing to the newest (${existing!.id})`);
  }
  if (!existing) {
    const created = await client.post<Agent>('/agents', body);
    return { id: created.id, name: created.name, action: 'created', version: created.version ?? 1 };
  }

  const current = await getAgentOrDraft(client, existing.id);
  const published = await client.post<{ version: number }>(`/agents/${existing.id}/versions`, { flow: def.flow });
  const unchanged = current?.version === published.version;

  const stale = [
    ['description', existing.description, def.description],
    ['tags', existing.tags ?? [], [...new Set(def.tags ?? [])]],
    ['visibility', existing.visibility, def.visibility],
    // Not given in the file: the server's estimate (the sum of the nodes') stands.
    ['estimated_cost', existing.estimated_cost, def.estimated_cost ?? existing.estimated_cost],
  ].filter(([, have, want]) => !jsonEqual(have, want));
  if (stale.length > 0) {
    warnings.push(
      `agent '${def.name}': ${stale.map(([field]) => field).join(', ')} differ from the file and were not updated ` +
        '(only the flow is versioned)',
    );
  }
  return {
    id: existing.id,
    name: existing.name,
    action: unchanged ? 'unchanged' : 'new_version',
    version: published.version,
  };
}

/** The agent, or undefined when it has no active version yet (GET answers 422). */
async function getAgentOrDraft(client: HttpClient, id: string): Promise<Agent | undefined> {
  try {
    return await client.get<Agent>(`/agents/${id}`);
  } catch (err) {
    if (err instanceof HttpError && err.status === 422) return undefined;
    throw err;
  }
}

async function publishApp(
  client: HttpClient,
  agentId: string,
  def: CatalogApp,
  warnings: string[],
): Promise<PublishReport['apps'][number]> {
  const candidates = await findAllOwn<AppSummary>(client, '/apps', def.name);
  for (const candidate of candidates) {
    const app = await client.get<App>(`/apps/${candidate.id}`);
    if (app.agent_id !== agentId) continue;
    if (!sameApp(app, def)) {
      warnings.push(`app '${def.name}' differs from the file and was not updated (apps cannot be edited yet)`);
    }
    return { id: app.id, name: app.name, action: 'exists' };
  }
  const created = await client.post<App>('/apps', { ...def, agent_id: agentId });
  return { id: created.id, name: created.name, action: 'created' };
}

function sameApp(app: App, def: CatalogApp): boolean {
  const inputs = def.inputs.map((i) => ({
    ...i,
    options: i.options ?? null,
    min_selections: i.min_selections ?? null,
    max_selections: i.max_selections ?? null,
  }));
  return (
    app.description === def.description &&
    app.visibility === def.visibility &&
    (app.avatar_url ?? null) === (def.avatar_url ?? null) &&
    (def.estimated_cost === undefined || app.estimated_cost === def.estimated_cost) &&
    jsonEqual(app.inputs ?? [], inputs) &&
    jsonEqual(app.outputs ?? [], def.outputs)
  );
}

/** The organization's own objects named exactly `name`, newest first. */
async function findAllOwn<T extends { name: string }>(client: HttpClient, path: string, name: string): Promise<T[]> {
  const found: T[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ owned: 'true', search: name, limit: '100' });
    if (cursor) query.set('cursor', cursor);
    const page: Page<T> = await client.get<Page<T>>(`${path}?${query}`);
    found.push(...page.data.filter((item) => item.name === name));
    cursor = page.next_cursor;
  } while (cursor);
  return found;
}
