import type { Flow, FlowNode } from '@weft/contracts';
import { ValidationError } from '@weft/errors';
import { assertValidFlow, validateFlow } from './validate';

const flow = (nodes: Partial<FlowNode>[], outputs: Flow['outputs'] = []): Flow => ({
  nodes: nodes.map((n) => ({ type: 'prompt_concatenate', ...n }) as FlowNode),
  outputs,
});

const example: Flow = {
  nodes: [
    { id: 'topic', type: 'text_input', description: 'Topic of the post', required: true },
    { id: 'tone', type: 'text_input', description: 'Tone', required: false, params: { default: 'friendly' } },
    { id: 'join', type: 'prompt_concatenate', params: { separator: ' / ' }, inputs: { parts: ['topic', 'tone'] } },
    { id: 'check', type: 'human_review', inputs: { value: 'join' } },
  ],
  outputs: [{ id: 'check', type: 'text', description: 'Approved prompt' }],
};

describe('validateFlow', () => {
  it('accepts the example flow of docs/api.md#flows', () => {
    expect(validateFlow(example)).toEqual([]);
    expect(() => assertValidFlow(example)).not.toThrow();
  });

  it('prefixes every loc with the caller path', () => {
    const issues = validateFlow(flow([{ id: 'a', inputs: { parts: ['nope'] } }]), ['body', 'flow']);
    expect(issues.map((i) => i.loc)).toEqual([['body', 'flow', 'nodes', 0, 'inputs', 'parts', 0]]);
  });

  it('reports a duplicate node id at the second occurrence', () => {
    const issues = validateFlow(flow([{ id: 'a' }, { id: 'b' }, { id: 'a' }]));
    expect(issues).toEqual([
      {
        loc: ['nodes', 2, 'id'],
        msg: "Duplicate node id 'a' (already used by nodes[0])",
        type: 'duplicate_node_id',
        input: 'a',
        ctx: { first_index: 0 },
      },
    ]);
  });

  it('reports an unknown node type at nodes[i].type', () => {
    const issues = validateFlow(flow([{ id: 'a' }, { id: 'b', type: 'teleport' as never }]));
    expect(issues).toEqual([
      { loc: ['nodes', 1, 'type'], msg: "Unknown node type 'teleport'", type: 'enum', input: 'teleport' },
    ]);
  });

  it('reports dangling links in a list port with the list index', () => {
    const issues = validateFlow(flow([{ id: 'a' }, { id: 'b', inputs: { parts: ['a', 'ghost'] } }]));
    expect(issues).toEqual([
      { loc: ['nodes', 1, 'inputs', 'parts', 1], msg: "Unknown node 'ghost'", type: 'unknown_node', input: 'ghost' },
    ]);
  });

  it('reports dangling links in a single-id port without an index', () => {
    const issues = validateFlow(flow([{ id: 'a', type: 'human_review', inputs: { value: 'ghost' } }]));
    expect(issues.map((i) => [i.loc, i.type])).toEqual([[['nodes', 0, 'inputs', 'value'], 'unknown_node']]);
  });

  it('reports self links', () => {
    const issues = validateFlow(flow([{ id: 'a', inputs: { parts: ['a'] } }]));
    expect(issues).toEqual([
      { loc: ['nodes', 0, 'inputs', 'parts', 0], msg: "Node 'a' links to itself", type: 'self_link', input: 'a' },
    ]);
  });

  it('reports a cycle once, at the link closing it, with the path in data-flow order', () => {
    // a reads c, b reads a, c reads b: c → a → b → c.
    const issues = validateFlow(
      flow([
        { id: 'a', inputs: { parts: ['c'] } },
        { id: 'b', inputs: { parts: ['a'] } },
        { id: 'c', inputs: { parts: ['b'] } },
      ]),
    );
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ type: 'cycle', loc: ['nodes', 1, 'inputs', 'parts', 0], input: 'a' });
    const path = (issues[0]!.ctx as { cycle: string[] }).cycle;
    expect(path[0]).toBe(path[path.length - 1]);
    expect(new Set(path)).toEqual(new Set(['a', 'b', 'c']));
    // Each consecutive pair is a real link: the second reads from the first.
    const reads: Record<string, string> = { a: 'c', b: 'a', c: 'b' };
    for (let i = 0; i + 1 < path.length; i++) expect(reads[path[i + 1]!]).toBe(path[i]);
    expect(issues[0]!.msg).toBe(`Cycle: ${path.join(' → ')}`);
  });

  it('reports a two-node cycle and leaves the acyclic part alone', () => {
    const issues = validateFlow(
      flow([
        { id: 'in', type: 'text_input' },
        { id: 'x', inputs: { parts: ['in', 'y'] } },
        { id: 'y', inputs: { parts: ['x'] } },
        { id: 'z', inputs: { parts: ['y'] } },
      ]),
    );
    expect(issues.map((i) => [i.type, i.loc])).toEqual([['cycle', ['nodes', 2, 'inputs', 'parts', 0]]]);
    expect(issues[0]!.ctx).toEqual({ cycle: ['x', 'y', 'x'] });
  });

  it('accepts a diamond (shared upstream is not a cycle)', () => {
    expect(
      validateFlow(
        flow([
          { id: 'a', type: 'text_input' },
          { id: 'b', inputs: { parts: ['a'] } },
          { id: 'c', inputs: { parts: ['a'] } },
          { id: 'd', inputs: { parts: ['b', 'c'], more: 'a' } },
        ]),
      ),
    ).toEqual([]);
  });

  it('reports outputs naming unknown nodes and duplicate output ids', () => {
    const issues = validateFlow(
      flow(
        [{ id: 'a' }],
        [
          { id: 'a', type: 'text', description: '' },
          { id: 'b', type: 'text', description: '' },
          { id: 'a', type: 'data', description: '' },
        ],
      ),
    );
    expect(issues.map((i) => [i.type, i.loc])).toEqual([
      ['unknown_node', ['outputs', 1, 'id']],
      ['duplicate_output_id', ['outputs', 2, 'id']],
    ]);
  });

  it('forbids links to and from comment and group nodes, and outputs on them', () => {
    const issues = validateFlow(
      flow(
        [
          { id: 'note', type: 'comment' },
          { id: 'box', type: 'group', inputs: { members: ['a'] } },
          { id: 'a', type: 'text_input' },
          { id: 'b', inputs: { parts: ['a', 'note'] } },
        ],
        [{ id: 'note', type: 'text', description: '' }],
      ),
    );
    expect(issues.map((i) => [i.type, i.loc])).toEqual([
      ['inert_node_link', ['nodes', 1, 'inputs', 'members', 0]],
      ['inert_node_link', ['nodes', 3, 'inputs', 'parts', 1]],
      ['inert_node_link', ['outputs', 0, 'id']],
    ]);
  });

  it('reports every problem, not just the first', () => {
    const issues = validateFlow(
      flow([{ id: 'a', inputs: { parts: ['ghost', 'a'] } }, { id: 'a' }], [{ id: 'z', type: 'text', description: '' }]),
    );
    expect(issues.map((i) => i.type)).toEqual(['duplicate_node_id', 'unknown_node', 'self_link', 'unknown_node']);
  });

  it('assertValidFlow throws a ValidationError carrying the issues', () => {
    try {
      assertValidFlow(flow([{ id: 'a', inputs: { parts: ['b'] } }]), ['flow']);
      throw new Error('expected a throw');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).status).toBe(422);
      expect((err as ValidationError).issues[0]!.loc).toEqual(['flow', 'nodes', 0, 'inputs', 'parts', 0]);
    }
  });

  it('handles a long chain without recursion limits', () => {
    const n = 20_000;
    const nodes: Partial<FlowNode>[] = [{ id: 'n0', type: 'text_input' }];
    for (let i = 1; i < n; i++) nodes.push({ id: `n${i}`, inputs: { parts: [`n${i - 1}`] } });
    expect(validateFlow(flow(nodes))).toEqual([]);
    nodes[0] = { id: 'n0', inputs: { parts: [`n${n - 1}`] } };
    const issues = validateFlow(flow(nodes));
    expect(issues).toHaveLength(1);
    expect((issues[0]!.ctx as { cycle: string[] }).cycle).toHaveLength(n + 1);
  });
});

describe('links to named outputs', () => {
  it('accepts `<id>.<port>` when the node exists, leaving the port to the node types', () => {
    const issues = validateFlow(
      flow([
        { id: 't', type: 'text_input' },
        { id: 'r', type: 'router', inputs: { value: 't' } },
        { id: 'a', inputs: { parts: ['r.yes', 'r.no'] } },
      ]),
    );
    expect(issues).toEqual([]);
  });

  it('reports `<id>.<port>` of an unknown node, and a node reading its own output', () => {
    const issues = validateFlow(flow([{ id: 'a', inputs: { parts: ['ghost.yes', 'a.yes'] } }]));
    expect(issues.map((i) => [i.loc, i.type])).toEqual([
      [['nodes', 0, 'inputs', 'parts', 0], 'unknown_node'],
      [['nodes', 0, 'inputs', 'parts', 1], 'self_link'],
    ]);
  });

  it('finds cycles through named outputs', () => {
    const issues = validateFlow(
      flow([
        { id: 'r', type: 'router', inputs: { value: 'a' } },
        { id: 'a', inputs: { parts: ['r.yes'] } },
      ]),
    );
    expect(issues.map((i) => i.type)).toEqual(['cycle']);
  });
});
