import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { waitFor } from '@weft/testing';
import { createParser } from 'eventsource-parser';

/** One event of a run's stream, its data parsed. */
export interface StreamEvent {
  event: string;
  id: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a run record or a node event, as each test reads it
  data: any;
}

/** A client of an event stream, as a test reads it. */
export interface EventStreamClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** What an answer other than 200 carried (its JSON). */
  body: unknown;
  events: StreamEvent[];
  /** Comment lines (`: keep-alive`), without the colon. */
  comments: string[];
  /** Waits for the response to be over: `ended` when the server ended it, `cut` when the connection dropped. */
  finished(timeoutMs?: number): Promise<'ended' | 'cut'>;
  /** Waits for an event matching `match` (the first one already there counts), and returns it. */
  until(what: string, match: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  /** Hangs up, as a client that goes away. */
  close(): void;
}

/** The base URL of a server listening on loopback. */
export function baseUrl(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * GET `path` from `base` as an event stream (Accept: text/event-stream),
 * parsed with eventsource-parser as it arrives. Resolves once the answer's
 * head is in; a non-200 answer is read whole.
 */
export function openEventStream(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<EventStreamClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      const events: StreamEvent[] = [];
      const comments: string[] = [];
      let over: 'ended' | 'cut' | undefined;
      res.once('close', () => (over = res.complete ? 'ended' : 'cut'));
      res.on('error', () => undefined);
      const client: EventStreamClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: undefined,
        events,
        comments,
        finished: (timeoutMs = 10_000) => waitFor('the stream to be over', () => over, { timeoutMs, intervalMs: 10 }),
        until: (what, match, timeoutMs = 10_000) =>
          waitFor(what, () => events.find(match), { timeoutMs, intervalMs: 10 }),
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          client.body = text ? JSON.parse(text) : undefined;
          resolve(client);
        });
        return;
      }
      const parser = createParser({
        onEvent: (message) => {
          events.push({ event: message.event ?? 'message', id: message.id ?? '', data: JSON.parse(message.data) });
        },
        onComment: (comment) => comments.push(comment.trim()),
      });
      res.on('data', (chunk: string) => parser.feed(chunk));
      resolve(client);
    });
    req.on('error', reject);
  });
}
