import type { FailureReason } from '@weft/contracts';
import type { EngineCore } from './engine-core';
import type { RunRow } from './store/run-rows';
import type { EndedRunStatus } from '@weft/dag';

// What the engine tells observers (the processes' metrics) about the work it
// did. Hooks are called after the transaction committed, so a rollback is
// never reported, and they are synchronous and cheap: they run on the hot path.

export interface RunStartedFact {
  kind: 'agent' | 'app';
  /** 0 when the reservation failed (the run failed at once for insufficient credits). */
  reservedCredits: number;
}

export interface RunEndedFact {
  kind: 'agent' | 'app';
  status: EndedRunStatus;
  failureReason: FailureReason | null;
  reservedCredits: number;
  chargedCredits: number;
}

export interface NodeJobFact {
  queue: string;
  nodeType: string;
  /** Enqueue to processing start; undefined for a retry, whose wait includes its backoff. */
  waitMs: number | undefined;
  processingMs: number;
}

export interface EngineHooks {
  runStarted?(fact: RunStartedFact): void;
  runEnded?(fact: RunEndedFact): void;
  nodeJobProcessed?(fact: NodeJobFact): void;
}

/** Calls a hook; an observer's bug must never fail a transition that has already committed. */
export function notify<K extends keyof EngineHooks>(
  core: Pick<EngineCore, 'hooks' | 'logger'>,
  name: K,
  fact: Parameters<NonNullable<EngineHooks[K]>>[0],
): void {
  try {
    (core.hooks[name] as ((f: typeof fact) => void) | undefined)?.(fact);
  } catch (err) {
    core.logger.warn({ err: (err as Error).message, hook: name }, 'engine hook failed');
  }
}

/**
 * After the commit of a transition that locked `run`: reports the end that
 * endRun or completeRun recorded on the row, if this transition ended it.
 */
export function reportRunEnded(core: Pick<EngineCore, 'hooks' | 'logger'>, run: RunRow | undefined): void {
  if (!run?.ended) return;
  notify(core, 'runEnded', {
    kind: run.kind,
    status: run.ended.status,
    failureReason: run.ended.failureReason,
    reservedCredits: run.reserved_credits,
    chargedCredits: run.ended.cost,
  });
}
