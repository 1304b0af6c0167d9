import type { IncomingHttpHeaders } from 'node:http';
import { startLoopbackServer } from '@weft/testing';

/** One request a receiver got: its path, headers and body as sent (the signature covers these bytes). */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers to a request on a path: a status (and headers), after a pause. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface WebhookReceiver {
  origin: string;
  url(path: string): string;
  received: Received[];
  /** Requests to `path`, in arrival order. */
  on(path: string): Received[];
  /** How `path` answers from now on: a fixed answer, or one per request (`n` counts requests to it, from 0). */
  answer(path: string, answer: Answer | ((n: number) => Answer)): void;
  /** Requests being answered (held by a delay). */
  readonly holding: number;
  close(): Promise<void>;
}

/** A webhook receiver: a real HTTP server on loopback that records what it gets and answers as told (200 by default). */
export async function startWebhookReceiver(host = '127.0.0.1'): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const answers = new Map<string, (n: number) => Answer>();
  const counts = new Map<string, number>();
  let holding = 0;
  const server = await startLoopbackServer(async (req, res, body) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    received.push({ path, headers: req.headers, body: body.toString('utf8') });
    const n = counts.get(path) ?? 0;
    counts.set(path, n + 1);
    const answer = answers.get(path)?.(n) ?? { status: 200 };
    if (answer.delayMs) {
      holding++;
      await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      holding--;
    }
    res.writeHead(answer.status, answer.headers).end();
  }, host);
  return {
    origin: server.origin,
    url: (path) => `${server.origin}${path}`,
    received,
    on: (path) => received.filter((r) => r.path === path),
    answer(path, answer) {
      answers.set(path, typeof answer === 'function' ? answer : () => answer);
    },
    get holding() {
      return holding;
    },
    close: () => server.close(),
  };
}
