import fs from 'node:fs';
import path from 'node:path';

const CATALOG = path.resolve(__dirname, '../../../../catalog');

/** Publishes one of catalog/*.json's agents into the organization of `apiKey`; returns its id. */
export async function publishCatalogAgent(baseUrl: string, apiKey: string, file: string): Promise<string> {
  const entry = JSON.parse(fs.readFileSync(path.join(CATALOG, file), 'utf8')) as Record<string, unknown>;
  const res = await fetch(`${baseUrl}/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({
      name: entry.name,
      description: entry.description,
      tags: entry.tags,
      visibility: 'private',
      flow: entry.flow,
      ...(entry.estimated_cost !== undefined ? { estimated_cost: entry.estimated_cost } : {}),
    }),
  });
  if (res.status !== 201) throw new Error(`POST /agents: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Publishes `flow` as an agent named `name` in the organization of `apiKey`. */
export async function publishAgent(baseUrl: string, apiKey: string, name: string, flow: unknown): Promise<string> {
  const res = await fetch(`${baseUrl}/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ name, description: `${name} (console test)`, visibility: 'private', flow }),
  });
  if (res.status !== 201) throw new Error(`POST /agents: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Starts a run of `agentId` through the API; returns its id. */
export async function startRun(baseUrl: string, apiKey: string, agentId: string, inputs: unknown[]): Promise<string> {
  const res = await fetch(`${baseUrl}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ agent_id: agentId, inputs }),
  });
  if (res.status !== 201) throw new Error(`POST /runs: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}
