import { postJson } from './proc';

// What the list routes of bench:gateway page through: one organization's
// apps, agent runs, app runs and uploads, created through the API like a
// client would. Runs stay in progress (no worker): a list reads the same
// columns whatever their status.

/** One app over an agent made by createTextAgent (its `topic` input, its `split` output). */
export async function createTextApp(
  base: string,
  auth: Record<string, string>,
  agentId: string,
  name: string,
): Promise<string> {
  const app = await postJson(`${base}/apps`, auth, {
    name,
    description: 'The three text nodes as an app',
    agent_id: agentId,
    inputs: [{ id: 'topic', type: 'text', name: 'Topic', required: true }],
    outputs: [{ id: 'split', type: 'text', description: 'Lines' }],
  });
  return app.id as string;
}

export async function createAgentRun(base: string, auth: Record<string, string>, agentId: string): Promise<void> {
  await postJson(`${base}/runs`, auth, { agent_id: agentId, inputs: [{ id: 'topic', value: 'tea' }] });
}

export async function createAppRun(base: string, auth: Record<string, string>, appId: string): Promise<void> {
  await postJson(`${base}/app-runs`, auth, { app_id: appId, inputs: [{ id: 'topic', value: 'tea' }] });
}

/** Just enough of a PDF for the gateway's type detection. */
const PDF = '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n';

export async function uploadSmallFile(base: string, auth: Record<string, string>, name: string): Promise<void> {
  const form = new FormData();
  form.append('file', new Blob([PDF], { type: 'application/pdf' }), `${name}.pdf`);
  const res = await fetch(`${base}/assets/upload`, { method: 'POST', headers: auth, body: form });
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${await res.text()}`);
}
