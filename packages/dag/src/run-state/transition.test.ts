import type { Flow, FlowNode, FlowOutput } from '@weft/contracts';
import { FlowGraph } from '../graph';
import { canMove, hasEnded, isSettled, NODE, NODE_MOVES, type NodeStatus } from './statuses';
import { actualCost, moveNode, nodeCharges, planTransition, type NodeState } from './transition';

const node = (id: string, type: FlowNode['type'], inputs?: FlowNode['inputs']): FlowNode => ({
  id,
  type,
  ...(inputs ? { inputs } : {}),
});
const requiredPort = (type: string, port: string) => type === 'prompt_concatenate' && port === 'parts';

// a → b → c, and a → d (generic_provider, no required port), c and d the flow's results.
const flow: Flow = {
  nodes: [
    node('a', 'text_input'),
    node('b', 'prompt_concatenate', { parts: ['a'] }),
    node('c', 'prompt_concatenate', { parts: ['b'] }),
    node('d', 'generic_provider', { prompt: 'a' }),
  ],
  outputs: [],
};
const graph = FlowGraph.of(flow);
const spec: FlowOutput[] = [
  { id: 'c', type: 'text', description: 'final text' },
  { id: 'd', type: 'images', description: 'pictures' },
];

function rows(states: Record<string, Partial<NodeState>>): NodeState[] {
  return flow.nodes.map((n) => ({
    node_id: n.id,
    node_type: n.type,
    status: NODE.pending,
    attempt: 0,
    cost: 0,
    output: null,
    ...states[n.id],
  }));
}

const text = (value: string) => ({ type: 'text', value });

describe('planTransition', () => {
  it('dispatches the nodes whose upstream nodes settled, and reports progress and the current node', () => {
    const nodes = rows({ a: { status: NODE.completed, output: text('hi') } });
    const t = planTransition({ reserved_credits: 10 }, nodes, graph, spec, requiredPort);
    expect(t.ready).toEqual([
      { nodeId: 'b', attempt: 0, nodeType: 'prompt_concatenate' },
      { nodeId: 'd', attempt: 0, nodeType: 'generic_provider' },
    ]);
    expect(nodes.find((n) => n.node_id === 'b')!.status).toBe(NODE.running);
    expect(t.progress).toBe(0.25);
    expect(t.currentNode).toBe('prompt_concatenate');
    expect(t.completion).toBeNull();
  });

  it('reports a run waiting on a review, with nothing dispatched', () => {
    const nodes = rows({
      a: { status: NODE.completed, output: text('hi') },
      b: { status: NODE.waitingReview, output: text('hi') },
      d: { status: NODE.completed, output: { type: 'images', value: [] } },
    });
    const t = planTransition({ reserved_credits: 10 }, nodes, graph, spec, requiredPort);
    expect(t).toMatchObject({ ready: [], awaitingReview: true, currentNode: null, completion: null });
  });

  it('completes the run once every node settled: results, output assets, cost capped at the reservation', () => {
    const asset = '0190a6a1-0000-7000-8000-000000000001';
    const nodes = rows({
      a: { status: NODE.completed, output: text('hi') },
      b: { status: NODE.completed, output: text('hi'), cost: 3 },
      c: { status: NODE.completed, output: text('done') },
      d: { status: NODE.completed, output: { type: 'images', value: [asset] }, cost: 9 },
    });
    const t = planTransition({ reserved_credits: 10 }, nodes, graph, spec, requiredPort);
    expect(t.progress).toBe(1);
    expect(t.completion).toEqual({
      results: [
        { id: 'c', type: 'text', value: 'done', description: 'final text' },
        { id: 'd', type: 'images', value: [asset], description: 'pictures' },
      ],
      cost: 10,
      outputAssetIds: [asset],
      charges: [
        { nodeId: 'b', nodeType: 'prompt_concatenate', cost: 3 },
        { nodeId: 'd', nodeType: 'generic_provider', cost: 9 },
      ],
    });
  });

  it('skips the nodes whose required input will never come, and gives them no result', () => {
    const nodes = rows({
      a: { status: NODE.completed, output: text('hi') },
      b: { status: NODE.skipped },
      d: { status: NODE.completed, output: { type: 'images', value: [] } },
    });
    const t = planTransition({ reserved_credits: 0 }, nodes, graph, spec, requiredPort);
    expect(t.skipped).toEqual(['c']);
    expect(t.completion?.results[0]).toMatchObject({ id: 'c', value: null });
  });
});

describe('the moves of a node', () => {
  it('refuses a move the state machine does not make', () => {
    const row = rows({ a: { status: NODE.completed } })[0]!;
    expect(() => moveNode(row, NODE.skipped)).toThrow("Node 'a' cannot move from completed to skipped");
    const pending = rows({})[1]!;
    moveNode(pending, NODE.running);
    expect(pending.status).toBe(NODE.running);
  });

  it('ends nowhere once failed or canceled, and every status has its moves listed', () => {
    const all = Object.values(NODE) as NodeStatus[];
    expect(Object.keys(NODE_MOVES).sort()).toEqual([...all].sort());
    for (const to of all) {
      expect(canMove(NODE.failed, to)).toBe(false);
      expect(canMove(NODE.canceled, to)).toBe(false);
    }
    expect(canMove(NODE.waitingReview, NODE.pending)).toBe(true);
  });

  it('names settled nodes and ended runs', () => {
    expect([NODE.completed, NODE.skipped].every(isSettled)).toBe(true);
    expect(isSettled(NODE.waitingReview)).toBe(false);
    expect(hasEnded('in_progress')).toBe(false);
    expect(hasEnded('canceled')).toBe(true);
  });
});

describe('costs', () => {
  it('charges what the nodes cost, never more than the reservation', () => {
    const nodes = rows({ a: { cost: 4 }, b: { cost: 0 }, d: { cost: 5 } });
    expect(actualCost({ reserved_credits: 20 }, nodes)).toBe(9);
    expect(actualCost({ reserved_credits: 6 }, nodes)).toBe(6);
    expect(nodeCharges(nodes).map((c) => c.nodeId)).toEqual(['a', 'd']);
  });
});
