import fs from 'node:fs';
import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { upload } from '../asset-fixtures';
import { postAgent } from '../catalog-fixtures';
import type { TestGateway } from '../test-gateway';
import { pollRun, type RunBody } from '../test-runs';

// Node library runs through the API: uploading media, running a flow to its
// end, and reading back what it produced.

export interface Org {
  id: string;
  apiKey: string;
}

/** Media nodes take seconds; a run that has not ended by then has hung. */
const RUN_TIMEOUT_MS = 120_000;

/** POST /assets/upload of `bytes` as `filename`; the new asset's id. */
export async function uploadAsset(gw: TestGateway, apiKey: string, bytes: Buffer, filename: string): Promise<string> {
  const res = await upload(gw.app, apiKey, bytes, { partName: filename });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`upload ${filename}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** POST /runs of `agentId` with `inputs`, then the run once it ended. */
export async function runAgent(gw: TestGateway, apiKey: string, agentId: string, inputs: object[]): Promise<RunBody> {
  const res = await request(gw.app).post('/runs').set('X-Api-Key', apiKey).send({ agent_id: agentId, inputs });
  if (res.status !== 201) throw new Error(`POST /runs: ${res.status} ${JSON.stringify(res.body)}`);
  return pollRun(gw, apiKey, `/runs/${res.body.id}`, undefined, RUN_TIMEOUT_MS);
}

/** Publishes `flow` as an agent and runs it with `inputs` to its end. */
export async function runFlow(gw: TestGateway, apiKey: string, flow: Flow, inputs: object[]): Promise<RunBody> {
  const agent = await postAgent(gw.app, apiKey, { flow });
  return runAgent(gw, apiKey, agent.id, inputs);
}

/** The value of the run's result `id` (of its first result when no id is given). */
export function resultOf(run: RunBody, id?: string): unknown {
  const results = run.results as { id: string; value: unknown }[] | undefined;
  const found = id === undefined ? results?.[0] : results?.find((r) => r.id === id);
  if (!found) throw new Error(`run ${run.id} (${run.status}) has no result '${id}': ${JSON.stringify(run)}`);
  return found.value;
}

/** The asset ids of the run's result `id` (of its only result when no id is given), after checking it completed. */
export function resultAssets(run: RunBody, id?: string): string[] {
  expect(run.status).toBe('completed');
  return resultOf(run, id) as string[];
}

/** A run that failed: its reason and message as GET /runs/{id} reports them. */
export function failureOf(run: RunBody): { reason: unknown; error: string } {
  expect(run.status).toBe('failed');
  return { reason: run.failure_reason, error: String(run.error) };
}

/** GET /assets/{id}/download: the bytes and headers. */
export async function download(gw: TestGateway, apiKey: string, id: string) {
  const res = await request(gw.app)
    .get(`/assets/${id}/download`)
    .set('X-Api-Key', apiKey)
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
  if (res.status !== 200) throw new Error(`download ${id}: ${res.status}`);
  return { bytes: res.body as Buffer, headers: res.headers as Record<string, string> };
}

/** Downloads asset `id` to `file`; its path. */
export async function downloadTo(gw: TestGateway, apiKey: string, id: string, file: string): Promise<string> {
  fs.writeFileSync(file, (await download(gw, apiKey, id)).bytes);
  return file;
}

/** GET /assets/{id}. */
export async function assetRecord(gw: TestGateway, apiKey: string, id: string) {
  const res = await request(gw.app).get(`/assets/${id}`).set('X-Api-Key', apiKey);
  if (res.status !== 200) throw new Error(`GET /assets/${id}: ${res.status}`);
  return res.body as Record<string, unknown>;
}
