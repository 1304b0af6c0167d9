import { runProbe } from '../testing/probe-process';

// GC_HEAP_GROWING_PERCENT reaches V8 (ADR 0018). Checked in a fresh Node
// process loading the gateway's first module the way main.ts does, then
// collecting in full once: after a full collection V8 sets the old
// generation's next limit to its live size times a growing factor, and
// --trace-gc-verbose prints the factor it used. That factor is what decides
// how often V8 collects in full; reading it takes one collection, where
// counting collections under a workload took seconds of allocation per case.
// This also fails if a Node upgrade stops V8's flags from being changed
// after start-up.

const PROBE = `
  require('./apps/gateway/src/tracing');
  gc();
`;

/** The growing factor V8 applied at the last full collection: `[HeapController] Limit: ... (1.6)`. */
async function lastGrowingFactor(env: Record<string, string>): Promise<number> {
  const stdout = await runProbe(PROBE, { nodeArgs: ['--expose-gc', '--trace-gc-verbose'], env });
  const factors = [...stdout.matchAll(/\[HeapController\] Limit: .*\(([\d.]+)\)$/gm)].map((m) => Number(m[1]));
  expect(factors.length).toBeGreaterThan(0);
  return factors.at(-1)!;
}

// Fresh processes loading TypeScript: seconds each on a busy machine.
jest.setTimeout(60_000);

it('the heap growth the gateway is configured with is the factor V8 grows the old generation by', async () => {
  expect(await lastGrowingFactor({})).toBeCloseTo(1.6, 5); // the default, 60 %
  expect(await lastGrowingFactor({ GC_HEAP_GROWING_PERCENT: '10' })).toBeCloseTo(1.1, 5);
  expect(await lastGrowingFactor({ GC_HEAP_GROWING_PERCENT: '300' })).toBeCloseTo(4, 5);
});

it('0 leaves the factor to V8', async () => {
  // V8 derives its own from the collector's and the program's speeds: not the default's 1.6.
  expect(await lastGrowingFactor({ GC_HEAP_GROWING_PERCENT: '0' })).not.toBeCloseTo(1.6, 5);
});
