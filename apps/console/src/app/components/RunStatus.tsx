import { STATUS_LABEL } from '../format';

/** A run's status as a badge; a run parked on a review says so. */
export function RunStatus({ run }: { run: { status: string; awaiting_human_review?: boolean } }) {
  const waiting = run.status === 'in_progress' && run.awaiting_human_review;
  return (
    <mark className={`status status-${waiting ? 'review' : run.status}`}>
      {waiting ? 'Waiting for review' : (STATUS_LABEL[run.status] ?? run.status)}
    </mark>
  );
}
