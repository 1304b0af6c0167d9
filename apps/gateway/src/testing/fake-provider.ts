import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeProvider {
  url(path: string): string;
  /** Bodies received, by path. */
  received: { path: string; body: unknown }[];
  /** Requests to /slow whose connection the client closed before an answer (aborted by the caller). */
  abortedSlow: number;
  /** Requests to /delay?tag=<tag> being answered now, the most at once so far, and how many arrived. */
  delayed(tag: string): { active: number; maxActive: number; started: number };
  /** Opens the gate ?name= of /gate: the requests waiting there are answered, and later ones at once. */
  openGate(name: string): void;
  close(): Promise<void>;
}

/**
 * The stand-in for an AI provider, speaking HTTP on 127.0.0.1 (which the test
 * workers allow-list): each path answers one of the ways docs/providers.md#failures maps.
 */
export async function startFakeProvider(): Promise<FakeProvider> {
  const state = { received: [] as { path: string; body: unknown }[], abortedSlow: 0 };
  const takes = new Map<string, number>();
  const delayed = new Map<string, { active: number; maxActive: number; started: number }>();
  const gates = new Map<string, (() => void)[] | 'open'>();
  const delayedOf = (tag: string) => {
    let d = delayed.get(tag);
    if (!d) delayed.set(tag, (d = { active: 0, maxActive: 0, started: 0 }));
    return d;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      let body: unknown = null;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      } catch {
        body = 'invalid json';
      }
      state.received.push({ path, body });
      const json = (status: number, payload: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      switch (path) {
        case '/ok': {
          const inputs = (body as { inputs?: Record<string, unknown> }).inputs ?? {};
          return json(200, { type: 'text', value: `echo:${JSON.stringify(inputs)}` });
        }
        case '/takes': {
          // A different answer on every call of a (run, node): take 1, take 2, ... of two lines.
          const { run_id, node_id } = body as { run_id?: string; node_id?: string };
          const key = `${run_id}/${node_id}`;
          const take = (takes.get(key) ?? 0) + 1;
          takes.set(key, take);
          return json(200, { type: 'text', value: `${node_id} take ${take} A\n${node_id} take ${take} B` });
        }
        case '/delay': {
          // Answers after ?ms= milliseconds: a node that takes a while, for kill and shutdown tests.
          // ?tag= counts the requests of one kind at once (one organization's, in fairness tests).
          const params = new URL(req.url ?? '/', 'http://x').searchParams;
          const ms = Number(params.get('ms') ?? 500);
          const counts = delayedOf(params.get('tag') ?? '');
          counts.started++;
          counts.maxActive = Math.max(counts.maxActive, ++counts.active);
          const timer = setTimeout(() => json(200, { type: 'text', value: 'late' }), ms);
          res.on('close', () => {
            clearTimeout(timer);
            counts.active--;
          });
          return;
        }
        case '/gate': {
          // Answers once the test opens the gate ?name=: a node that runs exactly as long as a test needs.
          const name = new URL(req.url ?? '/', 'http://x').searchParams.get('name') ?? '';
          const answer = () => json(200, { type: 'text', value: `through ${name}` });
          const gate = gates.get(name) ?? [];
          if (gate === 'open') return answer();
          gate.push(answer);
          gates.set(name, gate);
          return;
        }
        case '/unauthorized':
          return json(401, { error: 'bad key' });
        case '/content-policy':
          return json(422, { error: 'content_policy' });
        case '/bad-request':
          return json(400, { error: 'nope' });
        case '/server-error':
          return json(503, { error: 'down' });
        case '/lone-surrogate':
          // Valid JSON that JavaScript reads, whose text PostgreSQL cannot store.
          return res
            .writeHead(200, { 'content-type': 'application/json' })
            .end('{"type": "text", "value": "half \\ud800"}');
        case '/not-json':
          return res.writeHead(200).end('hello');
        case '/redirect-to-metadata':
          return res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data' }).end();
        case '/slow':
          // Never answers: the caller's timeout or cancel must end it.
          res.on('close', () => {
            if (!res.writableEnded) state.abortedSlow++;
          });
          return;
        default:
          return json(404, { error: 'unknown path' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    get received() {
      return state.received;
    },
    get abortedSlow() {
      return state.abortedSlow;
    },
    delayed: (tag) => ({ ...delayedOf(tag) }),
    openGate(name) {
      const gate = gates.get(name);
      gates.set(name, 'open');
      if (Array.isArray(gate)) for (const answer of gate) answer();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
