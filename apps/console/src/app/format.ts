const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDate(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

export function formatCredits(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return `${n} ${n === 1 ? 'credit' : 'credits'}`;
}

export function formatPercent(progress: number): string {
  return `${Math.round(progress * 100)} %`;
}

/** Status words as people say them. */
export const STATUS_LABEL: Record<string, string> = {
  in_progress: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
};

/** Status words as the graph shows them (the API's names stay in the title). */
export const NODE_STATUS_LABEL: Record<string, string> = {
  pending: 'waiting',
  running: 'running',
  waiting_review: 'waiting for review',
  completed: 'done',
  failed: 'failed',
  canceled: 'canceled',
  skipped: 'skipped',
};

/**
 * A short name for an id. Our ids are UUIDv7: their first digits are the time
 * they were made, the same for ids made together, so the last ones are used.
 */
export function shortId(id: string): string {
  return id.slice(-8);
}
