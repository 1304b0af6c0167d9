import type { Flow } from '@weft/contracts';
import { flowNodeIssues } from '../flow-check';
import { paramsSchemaOf } from '../registry';
import { NodeFailure, type NodeValue } from '../types';
import { MAX_MATCHED_TEXT } from '../route-conditions';
import { executeInTest } from './test-context';

const text = (value: string): NodeValue => ({ type: 'text', value });
const data = (value: unknown): NodeValue => ({ type: 'data', value });

/** The port a router with these routes sends `value` to ([] when none). */
async function route(value: NodeValue, routes: object[], default_port?: string) {
  const params = { routes, ...(default_port ? { default_port } : {}) };
  return executeInTest('router', { nodeId: 'r', inputs: { value }, params });
}

describe('router conditions', () => {
  it('equals: the whole text, or JSON-equal data whatever the key order', async () => {
    const routes = [
      { port: 'a', when: { equals: 'yes' } },
      { port: 'b', when: { equals: { x: 1, y: [true, null] } } },
    ];
    expect((await route(text('yes'), routes)).ports).toEqual(['a']);
    expect((await route(text('yes '), routes)).ports).toEqual([]);
    expect((await route(data({ y: [true, null], x: 1 }), routes)).ports).toEqual(['b']);
    expect((await route(data({ x: 1 }), routes)).ports).toEqual([]);
  });

  it('contains: a substring of the text, or an element of a list', async () => {
    const routes = [{ port: 'hit', when: { contains: 'urgent' } }];
    expect((await route(text('this is URGENT, urgent!'), routes)).ports).toEqual(['hit']);
    expect((await route(text('later'), routes)).ports).toEqual([]);
    expect((await route(data(['calm', 'urgent']), routes)).ports).toEqual(['hit']);
    expect((await route(data(['not urgent at all']), routes)).ports).toEqual([]);
    expect((await route(data({ urgent: true }), routes)).ports).toEqual([]);
  });

  it('matches: an RE2 expression found in the text, in linear time', async () => {
    const routes = [
      { port: 'id', when: { matches: '^ID-[0-9]{3}$' } },
      { port: 'any_case', when: { matches: '(?i)hello' } },
    ];
    expect((await route(text('ID-042'), routes)).ports).toEqual(['id']);
    expect((await route(text('say HeLLo'), routes)).ports).toEqual(['any_case']);
    expect((await route(text('ID-42'), routes)).ports).toEqual([]);
    // Exponential for a backtracking engine; RE2 answers at once.
    const started = performance.now();
    const evil = await route(text(`${'a'.repeat(50_000)}!`), [{ port: 'x', when: { matches: '^(a+)+$' } }]);
    expect(evil.ports).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('matches: refuses a text past the bound, naming the node and port', async () => {
    const long = text('a'.repeat(MAX_MATCHED_TEXT + 1));
    const failure = await route(long, [{ port: 'x', when: { matches: 'a' } }]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NodeFailure);
    expect(failure).toMatchObject({ reason: 'invalid_input', message: expect.stringContaining("input 'value'") });
    expect((failure as Error).message).toContain("Node 'r'");
  });

  it('path + equals: the property at a dotted path of the data', async () => {
    const routes = [
      { port: 'paid', when: { path: 'order.status', equals: 'paid' } },
      { port: 'first_big', when: { path: 'order.items.0.qty', equals: 10 } },
    ];
    expect((await route(data({ order: { status: 'paid' } }), routes)).ports).toEqual(['paid']);
    expect((await route(data({ order: { status: 'open', items: [{ qty: 10 }] } }), routes)).ports).toEqual([
      'first_big',
    ]);
    expect((await route(data({ order: {} }), routes)).ports).toEqual([]);
    expect((await route(text('order.status'), routes)).ports).toEqual([]);
  });

  it('takes the first route that holds, else default_port; passes the value on unchanged', async () => {
    const routes = [
      { port: 'one', when: { contains: 'a' } },
      { port: 'two', when: { contains: 'ab' } },
    ];
    expect(await route(text('abc'), routes, 'other')).toEqual({ output: text('abc'), ports: ['one'] });
    expect(await route(text('xyz'), routes, 'other')).toEqual({ output: text('xyz'), ports: ['other'] });
  });

  it('with no route holding and no default_port, sends the value nowhere', async () => {
    const result = await route(data({ n: 1 }), [{ port: 'one', when: { equals: 2 } }]);
    expect(result).toEqual({ output: data(null), ports: [] });
  });
});

describe('router params', () => {
  const parse = (params: object) => paramsSchemaOf('router').safeParse(params);

  it('refuses a pattern RE2 cannot compile (backreferences, lookarounds), saying why', () => {
    const result = parse({ routes: [{ port: 'x', when: { matches: '(a)\\1' } }] });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['routes', 0, 'when', 'matches']);
    expect(JSON.stringify(result.error!.issues)).toContain('not an RE2 regular expression');
  });

  it('refuses a condition without its operand, or with two', () => {
    expect(parse({ routes: [{ port: 'x', when: {} }] }).success).toBe(false);
    expect(parse({ routes: [{ port: 'x', when: { path: 'a' } }] }).success).toBe(false);
    expect(parse({ routes: [{ port: 'x', when: { contains: 'a', matches: 'b' } }] }).success).toBe(false);
    expect(parse({ routes: [{ port: 'x', when: { path: 'a', equals: null } }] }).success).toBe(true);
  });
});

describe('links to a router route (flowNodeIssues)', () => {
  const flow = (...targets: string[]): Flow => ({
    nodes: [
      { id: 't', type: 'text_input' },
      {
        id: 'r',
        type: 'router',
        params: { routes: [{ port: 'yes', when: { equals: 'y' } }], default_port: 'other' },
        inputs: { value: 't' },
      },
      { id: 'join', type: 'prompt_concatenate', inputs: { parts: targets } },
    ],
    outputs: [],
  });

  it('accepts a route port, the default port and the router itself', () => {
    expect(flowNodeIssues(flow('r.yes', 'r.other', 'r'))).toEqual([]);
  });

  it("refuses a port the router's params do not name, listing the ones they do", () => {
    expect(flowNodeIssues(flow('r.yes', 'r.nope'), ['body', 'flow'])).toEqual([
      {
        loc: ['body', 'flow', 'nodes', 2, 'inputs', 'parts', 1],
        msg: "router 'r' has no output 'nope'; its outputs are 'yes', 'other'",
        type: 'unknown_output',
        input: 'r.nope',
        ctx: { outputs: ['yes', 'other'] },
      },
    ]);
  });

  it('refuses `<id>.<port>` of a node that is not a router', () => {
    expect(flowNodeIssues(flow('t.yes'))).toEqual([
      expect.objectContaining({ loc: ['nodes', 2, 'inputs', 'parts', 0], type: 'no_named_outputs', input: 't.yes' }),
    ]);
  });
});
