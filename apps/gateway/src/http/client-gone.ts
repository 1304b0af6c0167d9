import type { ServerResponse } from 'node:http';
import { ClientClosedRequestError } from '@weft/errors';

/**
 * A signal that aborts (with a ClientClosedRequestError) once the client hangs
 * up before its response is finished, for work done only for that response.
 * A response emits 'close' after it finished too; that is not a hang-up.
 */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new ClientClosedRequestError());
  });
  return controller.signal;
}
