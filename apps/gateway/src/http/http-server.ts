import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { watchBodyPace, type BodyPaceOptions } from './body-pace';

/**
 * The HTTP server for `app`, whose requests and responses are born with the
 * prototypes Express gives them.
 *
 * Express 5 hands every request and response to the app's prototypes
 * (`Object.setPrototypeOf(req, app.request)` in `app.handle`). Changing an
 * object's prototype gives it a hidden class of its own, so every property
 * read on it, in Express, in Node's HTTP code and in ours, misses V8's
 * inline caches and goes through the runtime: 40% of the gateway's CPU in a
 * `perf` profile of bench:poll. Created with those prototypes, the objects
 * keep the classes V8 has already seen, and Express's `setPrototypeOf` finds
 * nothing to change. A bare Express route answers about 3× the requests per
 * second this way on this machine (ADR 0015).
 */
export interface HttpServerOptions {
  /**
   * How long an idle keep-alive connection is kept open. Longer than the idle
   * timeout of the load balancer in front (60 s on AWS's ALB, for one):
   * otherwise the balancer may send a request on a connection we are closing
   * at that moment, and its client gets a 502. Node's default is 5 s.
   */
  keepAliveTimeoutMs?: number;
  /** How request bodies must keep coming (body-pace.ts); without it, Node's 300 s requestTimeout applies. */
  bodyPace?: BodyPaceOptions;
}

export function createHttpServer(app: Express, { keepAliveTimeoutMs, bodyPace }: HttpServerOptions = {}): http.Server {
  // Node's IncomingMessage and ServerResponse are plain constructor functions,
  // so they can initialise an object made from another function's prototype.
  // (Reflect.construct would work for classes too, but its objects are slower
  // than Express's own: 0.7× its requests per second here.)
  const IncomingMessage = http.IncomingMessage as unknown as (this: unknown, socket: Socket) => void;
  const ServerResponse = http.ServerResponse as unknown as (this: unknown, ...args: unknown[]) => void;
  function ExpressRequest(this: unknown, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  ExpressRequest.prototype = app.request;
  function ExpressResponse(this: unknown, ...args: unknown[]) {
    ServerResponse.call(this, ...args);
  }
  ExpressResponse.prototype = app.response;
  const server = http.createServer(
    {
      IncomingMessage: ExpressRequest as unknown as typeof http.IncomingMessage,
      ServerResponse: ExpressResponse as unknown as typeof http.ServerResponse,
      ...(keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeout: keepAliveTimeoutMs }),
    },
    app,
  );
  // The next request's headers may take as long to arrive as the connection may idle.
  if (keepAliveTimeoutMs !== undefined)
    server.headersTimeout = Math.max(server.headersTimeout, keepAliveTimeoutMs + 1000);
  if (bodyPace) watchBodyPace(server, bodyPace);
  return server;
}
