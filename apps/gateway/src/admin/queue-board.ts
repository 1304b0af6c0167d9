import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import type { RequestHandler } from 'express';
import { requireAdminToken } from './queue-board-auth';

export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * Bull Board over the node queues and the asset queue, behind the admin token:
 * the guard first, then the board's own router (its page, assets and JSON API).
 * Jobs can be retried, promoted and removed from it: PostgreSQL stays the source
 * of truth, and the reconciler enqueues again a dispatched node whose job an
 * operator removed.
 */
export function createQueueBoard(queues: Queue[], adminToken: string): RequestHandler[] {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({
    // The light lane's shards share a name (on a cluster): each is shown under its key prefix.
    queues: queues.map((queue) =>
      queues.some((other) => other !== queue && other.name === queue.name)
        ? new BullMQAdapter(queue, { prefix: `${queue.opts.prefix}:` })
        : new BullMQAdapter(queue),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Weft queues', hideDocsLink: true } },
  });
  return [requireAdminToken(adminToken), serverAdapter.getRouter() as RequestHandler];
}
