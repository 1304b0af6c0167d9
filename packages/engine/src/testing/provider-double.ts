import { startLoopbackServer } from '@weft/testing';

export interface ProviderDouble {
  /** A generic_provider node's params.url for one of the double's answers. */
  url(path: '/echo' | '/takes' | '/down' | '/hold'): string;
  /** Requests received on `path` so far. */
  calls(path: string): number;
  /** Requests to /hold whose caller hung up before an answer (which never comes). */
  readonly abandoned: number;
  close(): Promise<void>;
}

/**
 * The provider behind generic_provider nodes, on loopback:
 *   /echo   {type: text, value: "echo:<the prompt input>"}
 *   /takes  a new answer each time a (run, node) calls it: "take 1", "take 2", ...
 *   /down   503: the node fails with provider_error
 *   /hold   never answers, until the caller gives up
 */
export async function startProviderDouble(): Promise<ProviderDouble> {
  const calls = new Map<string, number>();
  const takes = new Map<string, number>();
  let abandoned = 0;
  const server = await startLoopbackServer((req, res, body) => {
    const path = req.url ?? '/';
    calls.set(path, (calls.get(path) ?? 0) + 1);
    const request = JSON.parse(body.toString('utf8')) as {
      run_id: string;
      node_id: string;
      inputs: Record<string, unknown>;
    };
    const answer = (status: number, payload: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    switch (path) {
      case '/echo':
        return answer(200, { type: 'text', value: `echo:${String(request.inputs.prompt)}` });
      case '/takes': {
        const key = `${request.run_id}/${request.node_id}`;
        const take = (takes.get(key) ?? 0) + 1;
        takes.set(key, take);
        return answer(200, { type: 'text', value: `take ${take}` });
      }
      case '/down':
        return answer(503, { error: 'down' });
      case '/hold':
        res.on('close', () => abandoned++);
        return;
      default:
        return answer(404, { error: 'no such path' });
    }
  });
  return {
    url: (path) => `${server.origin}${path}`,
    calls: (path) => calls.get(path) ?? 0,
    get abandoned() {
      return abandoned;
    },
    close: () => server.close(),
  };
}
