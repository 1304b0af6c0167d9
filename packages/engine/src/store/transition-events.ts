import type { Transition } from '@weft/dag';
import { NODE } from '@weft/dag';
import type { NodeStatus } from '@weft/dag';
import { DELIVERY_COLUMNS, webhookTargetsSql, type RunEvent } from './webhook-events';

// The webhook events of a committed transition (commit-transition.ts), and the
// part of its statement that records them: present only when one of its runs
// has webhooks, so the statement of a run without any is unchanged.

/** What runEventsOf reads of a transition write (commit-transition.ts TransitionWrite). */
interface EventSource {
  run: { has_webhooks: boolean };
  settled: { nodeId: string; status: NodeStatus; review: unknown }[];
  transition: Pick<Transition, 'skipped' | 'completion'>;
}

/**
 * A node event per node settled (completed, or waiting for review) or
 * skipped, a review event per review opened, and the run's completion.
 */
export function runEventsOf({ run, settled, transition }: EventSource): RunEvent[] {
  if (!run.has_webhooks) return [];
  const events: RunEvent[] = settled.map((n) => ({ event: 'node', nodeId: n.nodeId, nodeStatus: n.status }));
  for (const nodeId of transition.skipped) events.push({ event: 'node', nodeId, nodeStatus: NODE.skipped });
  for (const n of settled) if (n.review) events.push({ event: 'review' });
  if (transition.completion) events.push({ event: 'completed' });
  return events;
}

export const WEBHOOKS_PART = {
  key: 'w',
  sql: `webhook_events AS (
    INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
    SELECT gen_random_uuid(), x.organization_id, x.id, t.endpoint_id, t.url, w.event, w.version, w.node_id, w.node_status
      FROM r JOIN unnest($webhookRuns::uuid[], $webhookEvents::"WebhookEvent"[], $webhookVersions::int[], $webhookNodes::text[],
                         $webhookNodeStatuses::"NodeStatus"[]) AS w(run_id, event, version, node_id, node_status) ON w.run_id = r.id
      JOIN runs x ON x.id = w.run_id
      CROSS JOIN LATERAL (${webhookTargetsSql('x', 'w.event')}) t
  )`,
};
