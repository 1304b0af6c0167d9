import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection
 * kept, before it starts the next one (ADR 0018). V8 derives that factor from
 * the GC and allocation speeds it measured; in a gateway under load it could
 * settle near 1.45, which left less room than V8 keeps in reserve for the
 * young generation, so marking started again right after every collection
 * (one every 150–200 ms, 2 to 3 times the CPU per download). A fixed factor
 * of 1.6 (60 %) or 2 kept every gateway out of that mode. 0 leaves V8's own.
 *
 * Called from the first module main.ts loads. Node keeps V8's flags writable
 * after start-up (it passes --no-freeze-flags-after-init) and V8 reads this
 * one whenever it sets a new limit; gc-tuning.int.test.ts checks both in a real
 * process.
 */
export function applyGcTuning(heapGrowingPercent: number): void {
  if (heapGrowingPercent > 0) setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
}
