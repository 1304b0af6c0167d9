import { FLOW_RUN_STATUSES, type NodeStatusName } from '@weft/contracts';

// The statuses of a run and of its nodes, and the moves between them. SQL
// statements spell these values in their text; they name them from here.

export type RunStatus = (typeof FLOW_RUN_STATUSES)[number];
export type EndedRunStatus = Exclude<RunStatus, 'in_progress'>;

export const RUN = {
  inProgress: 'in_progress',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
} as const satisfies Record<string, RunStatus>;

export const NODE = {
  /** Waiting for its upstream nodes. */
  pending: 'pending',
  /** Dispatched: queued or executing. */
  running: 'running',
  /** Its output is proposed for human review. */
  waitingReview: 'waiting_review',
  completed: 'completed',
  failed: 'failed',
  canceled: 'canceled',
  /** On a route not taken, or after a skipped node: settled without a value. */
  skipped: 'skipped',
} as const satisfies Record<string, NodeStatusName>;

export type NodeStatus = (typeof NODE)[keyof typeof NODE];

/**
 * The moves a node makes. A review's retry sends nodes back to a next attempt
 * (pending, or dispatched at once); ending a run cancels whatever is open.
 */
export const NODE_MOVES: Readonly<Record<NodeStatus, readonly NodeStatus[]>> = {
  pending: [NODE.running, NODE.skipped, NODE.completed, NODE.waitingReview, NODE.canceled],
  running: [NODE.completed, NODE.waitingReview, NODE.failed, NODE.canceled],
  waiting_review: [NODE.completed, NODE.pending, NODE.canceled],
  completed: [NODE.pending, NODE.running],
  skipped: [NODE.pending],
  failed: [],
  canceled: [],
};

export const REVIEW = {
  pending: 'pending',
  approved: 'approved',
  retried: 'retried',
  canceled: 'canceled',
} as const;

export type ReviewStatus = (typeof REVIEW)[keyof typeof REVIEW];

export function canMove(from: NodeStatus, to: NodeStatus): boolean {
  return NODE_MOVES[from].includes(to);
}

/** Completed or skipped: nothing more will happen to the node unless a review's retry reruns it. */
export function isSettled(status: NodeStatus): boolean {
  return status === NODE.completed || status === NODE.skipped;
}

/** A run that has ended moves no more. */
export function hasEnded(status: RunStatus): status is EndedRunStatus {
  return status !== RUN.inProgress;
}
