import type { Flow, FlowNode } from '@weft/contracts';
import { nextMoves, type BranchState } from './branches';
import { FlowGraph } from './graph';

const node = (id: string, type: FlowNode['type'], inputs?: FlowNode['inputs']): FlowNode => ({
  id,
  type,
  ...(inputs ? { inputs } : {}),
});

// Which ports a type cannot run without, as the node definitions would say.
const REQUIRED: Record<string, string[]> = {
  router: ['value'],
  prompt_concatenate: ['parts'],
  human_review: ['value'],
};
const requiredPort = (type: string, port: string) => REQUIRED[type]?.includes(port) ?? false;

/**
 * t → r; r.yes → yes → after; r.no → no (generic_provider: no required port) → afterNo; `join` reads both
 * branches on its required port, `mixed` the input and a route on optional ones, `plain` the router itself.
 */
const routed: Flow = {
  nodes: [
    node('t', 'text_input'),
    node('r', 'router', { value: 't' }),
    node('yes', 'prompt_concatenate', { parts: ['r.yes'] }),
    node('no', 'generic_provider', { prompt: 'r.no' }),
    node('after', 'prompt_concatenate', { parts: ['yes'] }),
    node('afterNo', 'prompt_concatenate', { parts: ['no'] }),
    node('join', 'prompt_concatenate', { parts: ['yes', 'no'] }),
    node('plain', 'generic_provider', { value: 'r' }),
    node('mixed', 'generic_provider', { a: 't', b: 'r.no' }),
  ],
  outputs: [],
};

/** Moves of `flow` once the nodes in `done` have reached the given states; every other node pending. */
function moves(flow: Flow, done: Record<string, BranchState>) {
  const graph = FlowGraph.of(flow);
  return nextMoves(graph, (id) => done[id] ?? { status: 'pending' }, requiredPort);
}

describe('nextMoves', () => {
  it('starts the nodes behind the route taken and skips the rest, transitively', () => {
    const m = moves(routed, { t: { status: 'completed' }, r: { status: 'completed', ports: ['yes'] } });
    expect(m.ready).toEqual(['yes', 'plain', 'mixed']);
    // afterNo only follows a skipped node; join waits for `yes`.
    expect(m.skipped).toEqual(['no', 'afterNo']);
  });

  it('skips a node one of whose required links comes from a skipped branch, once all have settled', () => {
    const m = moves(routed, {
      t: { status: 'completed' },
      r: { status: 'completed', ports: ['yes'] },
      yes: { status: 'completed' },
      no: { status: 'skipped' },
      after: { status: 'completed' },
      afterNo: { status: 'skipped' },
      plain: { status: 'completed' },
      mixed: { status: 'completed' },
    });
    expect(m).toEqual({ ready: [], skipped: ['join'] });
  });

  it('skips every route, and what a plain link to the router leads to, when no route was taken', () => {
    const m = moves(routed, { t: { status: 'completed' }, r: { status: 'completed', ports: [] } });
    expect(m.ready).toEqual(['mixed']);
    expect(m.skipped).toEqual(['yes', 'no', 'after', 'afterNo', 'join', 'plain']);
  });

  it('skips a node whose required port gets nothing, even when other links bring a value', () => {
    const flow: Flow = {
      nodes: [
        node('t', 'text_input'),
        node('r', 'router', { value: 't' }),
        node('review', 'human_review', { value: 'r.no', extra: 't' }),
        node('both', 'prompt_concatenate', { parts: ['t', 'r.no'] }),
      ],
      outputs: [],
    };
    expect(moves(flow, { t: { status: 'completed' }, r: { status: 'completed', ports: ['yes'] } })).toEqual({
      ready: [],
      skipped: ['review', 'both'],
    });
  });

  it('moves nothing while an upstream node is still running, and nothing that is not pending', () => {
    expect(moves(routed, { t: { status: 'running' } })).toEqual({ ready: [], skipped: [] });
    const m = moves(routed, {
      t: { status: 'completed' },
      r: { status: 'completed', ports: ['no'] },
      yes: { status: 'completed' },
      no: { status: 'running' },
    });
    expect(m).toEqual({ ready: ['after', 'plain', 'mixed'], skipped: [] });
  });

  it('treats a node that names no ports as passing its value on every link', () => {
    expect(moves(routed, { t: { status: 'completed' } })).toEqual({ ready: ['r'], skipped: [] });
  });
});

describe('FlowGraph with named outputs', () => {
  it('resolves `<id>.<port>` to the node, an exact id first', () => {
    const flow: Flow = {
      nodes: [
        node('t', 'text_input'),
        node('t.x', 'text_input'),
        node('r', 'router', { value: 't' }),
        node('a', 'prompt_concatenate', { parts: ['r.yes', 't.x', 'r'] }),
      ],
      outputs: [],
    };
    const graph = FlowGraph.of(flow);
    expect(graph.upstreamOf('a')).toEqual(['t.x', 'r']);
    expect(graph.inputLinks('a').map(({ node, output }) => [node, output])).toEqual([
      ['r', 'yes'],
      ['t.x', undefined],
      ['r', undefined],
    ]);
    expect(graph.descendantsOf('r')).toEqual(['a']);
  });
});
