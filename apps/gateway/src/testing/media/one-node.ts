import type { Flow } from '@weft/contracts';
import request from 'supertest';
import { postAgent } from '../catalog-fixtures';
import type { TestGateway } from '../test-gateway';
import type { RunBody } from '../test-runs';
import { runAgent } from './runs';

// Agents of one media node fed by asset inputs in0, in1...: the node under
// test, published, run, or refused at publication.

export interface NodeUnderTest {
  type: string;
  params?: Record<string, unknown>;
  /** The node's input port, fed by the flow's input(s). */
  port: string;
  /** The kind of the node's output (the flow's output declares it); default `videos`. */
  output?: 'videos' | 'images' | 'audio';
}

/**
 * An agent of one media node fed by `inputs` asset inputs (`video_input`
 * unless `audio`), whose output is the flow's; several inputs feed the port
 * as a list, in order.
 */
export async function mediaAgent(
  gw: TestGateway,
  apiKey: string,
  node: NodeUnderTest,
  inputs = 1,
  inputType: 'video_input' | 'audio_input' = 'video_input',
): Promise<string> {
  const ids = Array.from({ length: inputs }, (_, i) => `in${i}`);
  const flow: Flow = {
    nodes: [
      ...ids.map((id) => ({ id, type: inputType })),
      {
        id: 'node',
        type: node.type,
        ...(node.params ? { params: node.params } : {}),
        inputs: { [node.port]: inputs === 1 ? ids[0]! : ids },
      },
    ],
    outputs: [{ id: 'node', type: node.output ?? 'videos', description: 'The result' }],
  } as Flow;
  return (await postAgent(gw.app, apiKey, { flow })).id;
}

/** POST /agents of a flow with `node`, which must be refused (422); the response body. */
export async function refusedAgent(gw: TestGateway, apiKey: string, node: NodeUnderTest) {
  const flow = {
    nodes: [
      { id: 'in0', type: 'video_input' },
      { id: 'node', type: node.type, params: node.params ?? {}, inputs: { [node.port]: 'in0' } },
    ],
    outputs: [{ id: 'node', type: node.output ?? 'videos', description: '' }],
  };
  const res = await request(gw.app)
    .post('/agents')
    .set('X-Api-Key', apiKey)
    .send({ name: 'Refused', description: 'A bad param', flow });
  if (res.status !== 422) throw new Error(`POST /agents: ${res.status}, expected 422: ${JSON.stringify(res.body)}`);
  return res.body as { detail: { loc: (string | number)[]; msg: string; type: string }[] };
}

/** Runs a mediaAgent with the asset (or list of assets) of each input in0, in1...; the run once it ended. */
export function runOnAssets(
  gw: TestGateway,
  apiKey: string,
  agentId: string,
  assetIds: (string | string[])[],
): Promise<RunBody> {
  const inputs = assetIds.map((ids, i) => ({
    id: `in${i}`,
    value: { asset_ids: typeof ids === 'string' ? [ids] : ids },
  }));
  return runAgent(gw, apiKey, agentId, inputs);
}
