// @weft/dag: pure functions over flow definitions, and the run state machine
// (no I/O). Used by the gateway to validate what is published and by the
// engine to decide what a run does next.
export { validateFlow, assertValidFlow, FLOW_ISSUE, type Loc } from './validate';
export { FlowGraph, topologicalOrder, readyNodes, upstreamOf, downstreamOf, ancestorsOf, descendantsOf } from './graph';
export { agentInputs, agentOutputs, hasHumanReview } from './derive';
export { linksOf, linkLoc, resolveTarget, type Link, type LinkTarget, type ResolvedLink } from './links';
export { isInputNodeType, isInertNodeType, type RerunOutput } from './node-kinds';
export { canonicalJson, jsonEqual } from './canonical';
export { carriesValue, nextMoves, runsWith, type BranchState, type Moves } from './branches';
export {
  canMove,
  hasEnded,
  isSettled,
  NODE,
  NODE_MOVES,
  REVIEW,
  RUN,
  type EndedRunStatus,
  type NodeStatus,
  type ReviewStatus,
  type RunStatus,
} from './run-state/statuses';
export {
  actualCost,
  dispatchReady,
  moveNode,
  nodeCharges,
  planTransition,
  transitionOf,
  type Completion,
  type Dispatch,
  type NodeCharge,
  type NodeMoves,
  type NodeState,
  type RequiredPort,
  type RunState,
  type Transition,
} from './run-state/transition';
