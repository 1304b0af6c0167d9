import { runProbe } from '../testing/probe-process';

// GC_HEAP_GROWING_PERCENT reaches V8 (ADR 0018). Checked in a fresh Node
// process with --trace-gc, loading the gateway's first module the way main.ts
// does, then keeping a live set and churning objects that live long enough to
// reach the old generation: the smaller the growth V8 allows, the more full
// (mark-compact) collections the same work takes. This also fails if a Node
// upgrade stops V8's flags from being changed after start-up.

const PROBE = `
  require('./apps/gateway/src/tracing');
  const live = [];
  for (let i = 0; i < 300000; i++) live.push({ a: i, b: 'x' + i, c: [i, i] });
  const ring = new Array(300000);
  for (let i = 0; i < 6000000; i++) ring[i % 300000] = { i, s: new Array(8).fill(i) };
`;

async function fullCollections(env: Record<string, string>): Promise<number> {
  const stdout = await runProbe(PROBE, { nodeArgs: ['--trace-gc'], env });
  return stdout.split('\n').filter((line) => line.includes('Mark-Compact')).length;
}

jest.setTimeout(120_000);

it('the heap growth the gateway is configured with decides how often V8 collects in full', async () => {
  const v8Own = await fullCollections({ GC_HEAP_GROWING_PERCENT: '0' });
  const tight = await fullCollections({ GC_HEAP_GROWING_PERCENT: '10' });
  const roomy = await fullCollections({ GC_HEAP_GROWING_PERCENT: '300' });
  expect(tight).toBeGreaterThan(2 * roomy);
  expect(tight).toBeGreaterThan(2 * v8Own);
});
