import { createTestEnv, type TestEnv } from '@weft/testing';
import { reviewFlow } from '../../testing/catalog-fixtures';
import { openEventStream } from '../../testing/event-stream';
import { startGatewayProcess, type GatewayProcess } from '../../testing/gateway-process';

// A gateway process that stops (SIGTERM) ends the event streams open on it, so that their clients
// reconnect to another instance, and exits: a stream, which lasts as long as its run, does not hold
// the process until its shutdown deadline cuts the connection.

jest.setTimeout(60_000);

const ADMIN_TOKEN = 'events-shutdown-admin-token-0123456789';

let env: TestEnv;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  if (gateway && gateway.child.exitCode === null && gateway.child.signalCode === null) gateway.child.kill('SIGKILL');
  await gateway?.exited;
  await env.cleanup();
});

test('SIGTERM ends the open streams (without `end`) and the process exits', async () => {
  gateway = await startGatewayProcess({ ...env.env, ADMIN_TOKEN });
  await gateway.ready;
  const call = async (path: string, headers: Record<string, string>, body: unknown) => {
    const res = await fetch(`${gateway!.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as Record<string, unknown>;
  };
  const org = await call(
    '/admin/organizations',
    { Authorization: `Bearer ${ADMIN_TOKEN}` },
    { name: 'Stop', credits: 10 },
  );
  const key = { 'X-Api-Key': org.api_key as string };
  const agent = await call('/agents', key, { name: 'Parked', description: 'd', flow: reviewFlow() });
  // No worker runs here: the run stays in progress, and its stream stays open.
  const run = await call('/runs', key, { agent_id: agent.id, inputs: [{ id: 'topic', value: 'tea' }] });

  const streams = await Promise.all(
    [1, 2].map(() => openEventStream(gateway!.url, `/runs/${String(run.id)}/events`, key)),
  );
  for (const stream of streams) await stream.until('the first event', (e) => e.event === 'run');

  gateway.child.kill('SIGTERM');
  for (const stream of streams) {
    // Ended by the server (the response completed), not cut by a closing connection.
    expect(await stream.finished()).toBe('ended');
    expect(stream.events.map((e) => e.event)).not.toContain('end');
  }
  expect(await gateway.exited).toEqual({ code: 0, signal: null });
});
