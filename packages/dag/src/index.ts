// @weft/dag: pure functions over flow definitions (no I/O). Used by the
// gateway to validate what is published and by the worker to schedule nodes.
export { validateFlow, assertValidFlow, FLOW_ISSUE, type Loc } from './validate';
export { FlowGraph, topologicalOrder, readyNodes, upstreamOf, downstreamOf, ancestorsOf, descendantsOf } from './graph';
export { agentInputs, agentOutputs, hasHumanReview } from './derive';
export { linksOf, linkLoc, resolveTarget, type Link, type LinkTarget, type ResolvedLink } from './links';
export { isInputNodeType, isInertNodeType, type RerunOutput } from './node-kinds';
export { canonicalJson, jsonEqual } from './canonical';
export { carriesValue, nextMoves, runsWith, type BranchState, type Moves } from './branches';
