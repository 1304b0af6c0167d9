import type { AppRunSummary, RunSummary } from '@weft/sdk/browser';
import { Link } from 'wouter';
import { useClient } from '../client-context';
import { ErrorNote } from '../components/ErrorNote';
import { formatDate, formatPercent, shortId } from '../format';
import { takePage } from '../pages-of';
import { useLoad } from '../use-load';
import { useWhileVisible } from '../use-while-visible';

const INBOX_SIZE = 100;
/** Reviews start and end without telling the page: it asks again this often while shown. */
const INBOX_REFRESH_MS = 5_000;

type Waiting = (RunSummary & { kind: 'agent' }) | (AppRunSummary & { kind: 'app' });

/** Every run of the organization waiting for a review decision, newest first. */
export function ReviewsPage() {
  const client = useClient();
  const inbox = useLoad(
    async (signal): Promise<Waiting[]> => {
      const query = { awaiting_human_review: true, status: 'in_progress' as const };
      const [runs, appRuns] = await Promise.all([
        takePage(client.runs.list(query, { signal }), INBOX_SIZE),
        takePage(client.appRuns.list(query, { signal }), INBOX_SIZE),
      ]);
      return [
        ...runs.map((r) => ({ ...r, kind: 'agent' as const })),
        ...appRuns.map((r) => ({ ...r, kind: 'app' as const })),
      ].sort((a, b) => b.created_at.localeCompare(a.created_at));
    },
    [client],
  );
  useWhileVisible(inbox.reload, INBOX_REFRESH_MS);

  return (
    <section>
      <h1>Reviews</h1>
      <p>Runs waiting for a person to approve or retry a proposal; the list refreshes every few seconds.</p>
      <button type="button" className="secondary outline" onClick={inbox.reload} aria-busy={inbox.loading}>
        Refresh
      </button>
      <ErrorNote error={inbox.error} />
      {inbox.data && inbox.data.length === 0 && <p>Nothing is waiting for a review.</p>}
      {inbox.data && inbox.data.length > 0 && (
        <ul className="inbox">
          {inbox.data.map((run) => (
            <li key={run.id}>
              <Link href={`/reviews/${run.kind === 'app' ? 'app-runs' : 'runs'}/${run.id}`}>
                {run.kind === 'app' ? 'App run' : 'Run'} {shortId(run.id)}
              </Link>{' '}
              <small>
                started {formatDate(run.created_at)} · {formatPercent(run.progress)} done
                {run.external_id ? ` · ${run.external_id}` : ''}
              </small>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
