import { Counter } from 'prom-client';
import type { MetricsRegistry } from './registry';
import { METRIC } from './names';

export type RunKind = 'agent' | 'app';

export interface RunStartedEvent {
  kind: RunKind;
  /** Credits reserved for the run (0 when the reservation failed). */
  reservedCredits: number;
}

export interface RunEndedEvent {
  kind: RunKind;
  status: 'completed' | 'failed' | 'canceled';
  /** null for completed runs. */
  failureReason: string | null;
  reservedCredits: number;
  /** What the run cost: charged; the rest of the reservation is released. */
  chargedCredits: number;
}

/**
 * Run and credit counters. Structurally the engine's hooks (`EngineHooks` of
 * @weft/engine), which call them once the transaction that started or ended
 * a run has committed; a rollback never counts.
 */
export interface RunMetrics {
  runStarted(event: RunStartedEvent): void;
  runEnded(event: RunEndedEvent): void;
}

export function createRunMetrics({ registry }: MetricsRegistry): RunMetrics {
  const registers = [registry];
  const started = new Counter({
    name: METRIC.runsStarted,
    help: 'Runs created, by kind (agent or app)',
    labelNames: ['kind'] as const,
    registers,
  });
  const ended = new Counter({
    name: METRIC.runsEnded,
    help: 'Runs that reached a terminal status, by kind, status and failure_reason (none when completed)',
    labelNames: ['kind', 'status', 'failure_reason'] as const,
    registers,
  });
  const reserved = new Counter({
    name: METRIC.creditsReserved,
    help: 'Credits reserved by runs at creation (their estimated cost)',
    registers,
  });
  const charged = new Counter({
    name: METRIC.creditsCharged,
    help: 'Credits charged by ended runs (their actual cost)',
    registers,
  });
  const released = new Counter({
    name: METRIC.creditsReleased,
    help: 'Reserved credits given back by ended runs (reserved minus charged)',
    registers,
  });
  for (const kind of ['agent', 'app']) started.inc({ kind }, 0);
  return {
    runStarted(event) {
      started.inc({ kind: event.kind });
      if (event.reservedCredits > 0) reserved.inc(event.reservedCredits);
    },
    runEnded(event) {
      ended.inc({ kind: event.kind, status: event.status, failure_reason: event.failureReason ?? 'none' });
      if (event.chargedCredits > 0) charged.inc(event.chargedCredits);
      const unused = event.reservedCredits - event.chargedCredits;
      if (unused > 0) released.inc(unused);
    },
  };
}
