import type { Flow, FlowNode } from '@weft/contracts';
import { ValidationError } from '@weft/errors';
import { agentInputs, agentOutputs, hasHumanReview } from './derive';
import { FlowGraph, readyNodes, topologicalOrder, upstreamOf } from './graph';
import type { RerunOutput } from './node-kinds';

const node = (id: string, type: FlowNode['type'], inputs?: FlowNode['inputs']): FlowNode => ({
  id,
  type,
  ...(inputs ? { inputs } : {}),
});

// d reads b and c, listed before them; b and c read a; note is a comment.
const diamond: Flow = {
  nodes: [
    node('d', 'prompt_concatenate', { parts: ['c', 'b'], extra: 'a' }),
    node('note', 'comment'),
    node('a', 'text_input'),
    node('c', 'prompt_concatenate', { parts: ['a'] }),
    node('b', 'prompt_concatenate', { parts: ['a', 'a'] }),
  ],
  outputs: [{ id: 'd', type: 'text', description: 'joined' }],
};

describe('FlowGraph', () => {
  it('leaves comment and group nodes out', () => {
    expect(FlowGraph.of(diamond).nodeIds()).toEqual(['d', 'a', 'c', 'b']);
  });

  it('orders upstream before downstream, flow order among independent nodes', () => {
    const order = topologicalOrder(diamond);
    expect(order).toEqual(['a', 'c', 'b', 'd']);
  });

  it('deduplicates edges and lists neighbours in flow order', () => {
    const g = FlowGraph.of(diamond);
    expect(upstreamOf(diamond, 'd')).toEqual(['a', 'c', 'b']);
    expect(g.upstreamOf('b')).toEqual(['a']);
    expect(g.downstreamOf('a')).toEqual(['d', 'c', 'b']);
    expect(g.ancestorsOf('d')).toEqual(['a', 'c', 'b']);
    expect(g.descendantsOf('c')).toEqual(['d']);
    expect(g.descendantsOf('a')).toEqual(['d', 'c', 'b']);
    expect(g.roots()).toEqual(['a']);
  });

  it('computes ready nodes from a completed set', () => {
    expect(readyNodes(diamond, new Set())).toEqual(['a']);
    expect(readyNodes(diamond, new Set(['a']))).toEqual(['c', 'b']);
    expect(readyNodes(diamond, new Set(['a', 'b']))).toEqual(['c']);
    expect(readyNodes(diamond, new Set(['a', 'b', 'c']))).toEqual(['d']);
    expect(readyNodes(diamond, new Set(['a', 'b', 'c', 'd']))).toEqual([]);
  });

  it('rejects an invalid flow with a ValidationError', () => {
    const cyclic: Flow = {
      nodes: [node('x', 'prompt_concatenate', { parts: ['y'] }), node('y', 'prompt_concatenate', { parts: ['x'] })],
      outputs: [],
    };
    expect(() => FlowGraph.of(cyclic)).toThrow(ValidationError);
  });

  it('caches the graph per flow object', () => {
    expect(FlowGraph.of(diamond)).toBe(FlowGraph.of(diamond));
  });

  it('throws on an unknown node id', () => {
    expect(() => FlowGraph.of(diamond).upstreamOf('note')).toThrow(/note/);
  });

  it('sorts a long chain listed backwards without recursion', () => {
    const n = 20_000;
    const nodes: FlowNode[] = [];
    for (let i = n - 1; i > 0; i--) nodes.push(node(`n${i}`, 'prompt_concatenate', { parts: [`n${i - 1}`] }));
    nodes.push(node('n0', 'text_input'));
    const order = topologicalOrder({ nodes, outputs: [] });
    expect(order[0]).toBe('n0');
    expect(order[n - 1]).toBe(`n${n - 1}`);
  });
});

describe('retryPathOf', () => {
  // What the node types' definitions say (@weft/nodes): providers answer anew, reviews stand.
  const rerun = (type: string): RerunOutput =>
    type === 'human_review' ? 'reviewed' : type === 'generic_provider' || type === 'llm' ? 'new' : 'same';
  const provider = (id: string, inputs?: FlowNode['inputs']): FlowNode => ({
    ...node(id, 'generic_provider', inputs),
    params: { url: 'http://127.0.0.1/ok' },
  });

  it('re-runs back to the nearest provider node, through every deterministic level', () => {
    const flow: Flow = {
      nodes: [
        node('topic', 'text_input'),
        node('style', 'text_input'),
        provider('write', { prompt: 'topic' }),
        node('join', 'prompt_concatenate', { parts: ['write', 'style'] }),
        node('lines', 'text_split', { text: 'join' }),
        node('check', 'human_review', { value: 'lines' }),
      ],
      outputs: [],
    };
    expect(FlowGraph.of(flow).retryPathOf('check', rerun)).toEqual({
      sources: ['write'],
      rerun: ['write', 'join', 'lines'],
    });
  });

  it('stops at the nearest provider node and leaves branches that do not feed the review', () => {
    const flow: Flow = {
      nodes: [
        node('topic', 'text_input'),
        provider('outline', { prompt: 'topic' }),
        provider('draft', { prompt: 'outline' }),
        provider('side', { prompt: 'outline' }),
        node('lines', 'text_split', { text: 'draft' }),
        node('check', 'human_review', { value: 'lines' }),
        node('after', 'prompt_concatenate', { parts: ['check', 'side'] }),
      ],
      outputs: [],
    };
    expect(FlowGraph.of(flow).retryPathOf('check', rerun)).toEqual({ sources: ['draft'], rerun: ['draft', 'lines'] });
  });

  it('re-runs every nearest provider node of a review fed by several', () => {
    const flow: Flow = {
      nodes: [
        node('topic', 'text_input'),
        provider('a', { prompt: 'topic' }),
        provider('b', { prompt: 'topic' }),
        node('first', 'list_selector', { list: 'b' }),
        node('join', 'prompt_concatenate', { parts: ['a', 'first', 'topic'] }),
        node('check', 'human_review', { value: 'join' }),
      ],
      outputs: [],
    };
    expect(FlowGraph.of(flow).retryPathOf('check', rerun)).toEqual({
      sources: ['a', 'b'],
      rerun: ['a', 'b', 'first', 'join'],
    });
  });

  it('finds nothing to re-run when only run inputs and deterministic nodes feed the review', () => {
    const flow: Flow = {
      nodes: [
        node('topic', 'text_input'),
        node('join', 'prompt_concatenate', { parts: ['topic'] }),
        node('check', 'human_review', { value: 'join' }),
      ],
      outputs: [],
    };
    expect(FlowGraph.of(flow).retryPathOf('check', rerun)).toEqual({ sources: [], rerun: [] });
  });

  it('does not reach past an earlier review, whose decision stands', () => {
    const flow: Flow = {
      nodes: [
        node('topic', 'text_input'),
        provider('write', { prompt: 'topic' }),
        node('first', 'human_review', { value: 'write' }),
        node('lines', 'text_split', { text: 'first' }),
        node('second', 'human_review', { value: 'lines' }),
      ],
      outputs: [],
    };
    expect(FlowGraph.of(flow).retryPathOf('second', rerun)).toEqual({ sources: [], rerun: [] });
    expect(FlowGraph.of(flow).retryPathOf('first', rerun)).toEqual({ sources: ['write'], rerun: ['write'] });
  });
});

describe('derivations', () => {
  const flow: Flow = {
    nodes: [
      { id: 'topic', type: 'text_input', description: 'Topic of the post', required: true },
      { id: 'join', type: 'prompt_concatenate', inputs: { parts: ['topic', 'tone'] } },
      { id: 'tone', type: 'text_input', required: false, params: { default: 'friendly' } },
      { id: 'pic', type: 'image_input', description: 'A photo' },
    ],
    outputs: [{ id: 'join', type: 'text', description: 'Prompt' }],
  };

  it('agentInputs: input nodes in flow order with defaults', () => {
    expect(agentInputs(flow)).toEqual([
      { id: 'topic', type: 'text_input', description: 'Topic of the post', required: true },
      { id: 'tone', type: 'text_input', description: '', required: false },
      { id: 'pic', type: 'image_input', description: 'A photo', required: true },
    ]);
  });

  it('agentOutputs: the flow outputs', () => {
    expect(agentOutputs(flow)).toEqual([{ id: 'join', type: 'text', description: 'Prompt' }]);
  });

  it('hasHumanReview', () => {
    expect(hasHumanReview(flow)).toBe(false);
    expect(hasHumanReview({ ...flow, nodes: [...flow.nodes, node('r', 'human_review', { value: 'join' })] })).toBe(
      true,
    );
  });
});
