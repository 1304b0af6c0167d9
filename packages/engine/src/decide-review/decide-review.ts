import { ConflictError, NotFoundError } from '@weft/errors';
import { commitUnderLock } from '../store/commit-under-lock';
import type { Dispatch } from '@weft/dag';
import { rerunOutputOf } from '@weft/nodes';
import type { EngineCore } from '../engine-core';
import { reportRunEnded } from '../engine-hooks';
import { approvedOutput } from './review-output';
import { loadNodes, lockRun, type RunRow } from '../store/run-rows';
import { completeReviewedNode, rerunNodes } from '../store/node-executions';
import { approveReview, readReview, retryReview, type ReviewRow } from '../store/reviews';
import { withTransaction } from '../store/tx';
import { recordRunEvents } from '../store/webhook-events';
import type { PoolClient } from 'pg';
import { NODE, REVIEW, RUN } from '@weft/dag';

export interface ReviewDecisionInput {
  decision: 'approve' | 'retry';
  output?: Record<string, unknown> | undefined;
}

/**
 * POST /runs/{run_id}/reviews/{review_id}. Under the run lock the review
 * moves pending → approved | retried with a conditional update, so of two
 * concurrent decisions exactly one wins and the other gets 409.
 * - approve: the review node completes with exactly the reviewer's output and
 *   the run continues downstream;
 * - retry: the nodes upstream of the review back to the nearest ones whose
 *   output can change (FlowGraph.retryPathOf) run again, each at its next
 *   attempt, and the review node waits for them, then proposes anew; nodes
 *   skipped after them are decided again (a router may route elsewhere).
 * 404: run or review unknown to the caller; 409: the review is not pending.
 */
export async function decideReview(
  core: EngineCore,
  orgId: string,
  runId: string,
  reviewId: string,
  input: ReviewDecisionInput,
): Promise<void> {
  let locked: RunRow | undefined;
  const dispatch = await withTransaction(core.db.pool, async (client) => {
    const run = (locked = await lockRun(client, runId, orgId));
    if (!run) throw new NotFoundError('Run');
    const review = await readReview(client, runId, reviewId);
    if (!review) throw new NotFoundError('Review');
    if (review.status !== REVIEW.pending || run.status !== RUN.inProgress) {
      throw new ConflictError(
        `Review is not pending (${review.status === REVIEW.pending ? run.status : review.status})`,
      );
    }
    return input.decision === 'approve'
      ? approve(core, client, run, reviewId, review, input.output)
      : retry(core, client, run, reviewId, review);
  });
  reportRunEnded(core, locked);
  if (locked) core.changes.announce([locked]);
  await core.dispatcher.dispatch(orgId, runId, dispatch);
  if (locked?.has_webhooks) await core.webhooks.relay([runId]);
}

async function approve(
  core: EngineCore,
  client: PoolClient,
  run: RunRow,
  reviewId: string,
  review: ReviewRow,
  output: Record<string, unknown> | undefined,
): Promise<Dispatch[]> {
  const nodes = await loadNodes(client, run.id);
  const node = nodes.find((n) => n.node_id === review.node_id && n.status === NODE.waitingReview);
  if (!node?.output) throw new ConflictError('Review is not pending');
  const value = await approvedOutput(client, run.organization_id, review.proposed_output, node.output, output);
  await approveReview(client, reviewId, output);
  await completeReviewedNode(client, run, review.node_id, value);
  await recordRunEvents(client, run, [{ event: 'node', nodeId: review.node_id, nodeStatus: NODE.completed }]);
  node.status = NODE.completed;
  node.output = value;
  return commitDecision(core, client, run, nodes);
}

async function retry(
  core: EngineCore,
  client: PoolClient,
  run: RunRow,
  reviewId: string,
  review: ReviewRow,
): Promise<Dispatch[]> {
  const version = await core.versions.version(run.agent_version_id);
  const path = version.graph.retryPathOf(review.node_id, rerunOutputOf);
  // With nothing upstream that can change, a retry still does what the interface
  // promises: the direct upstream node(s) run again and the review proposes anew
  // (the same proposal, under a new review id).
  const sources = path.sources.length > 0 ? path.sources : version.graph.upstreamOf(review.node_id);
  const between = path.rerun.filter((id) => !sources.includes(id));
  // A router among the re-run nodes may take another route this time: the nodes skipped
  // after them are decided again, once the nodes before them have settled anew.
  const after = new Set(sources.flatMap((id) => version.graph.descendantsOf(id)));
  const skipped = (await loadNodes(client, run.id))
    .filter((n) => n.status === NODE.skipped && after.has(n.node_id))
    .map((n) => n.node_id);
  await retryReview(client, reviewId);
  // Every node re-run moves to its next attempt (a new job id), as does the review node,
  // which then waits for them and proposes anew. The sources start at once (their own
  // upstream nodes keep their outputs); the nodes between wait for theirs.
  await rerunNodes(client, run, [review.node_id, ...between, ...skipped], sources);
  const nodes = await loadNodes(client, run.id);
  const dispatched = nodes
    .filter((n) => sources.includes(n.node_id))
    .map((n) => ({ nodeId: n.node_id, attempt: n.attempt, nodeType: n.node_type }));
  return [...dispatched, ...(await commitDecision(core, client, run, nodes))];
}

async function commitDecision(
  core: EngineCore,
  client: PoolClient,
  run: RunRow,
  nodes: Awaited<ReturnType<typeof loadNodes>>,
) {
  const version = await core.versions.version(run.agent_version_id);
  const spec = await core.versions.resultSpec(run.agent_version_id, run.app_id);
  return commitUnderLock(client, run, nodes, version, spec, null);
}
