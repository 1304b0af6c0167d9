import type { AppRunSummary, RunStatus as Status, RunSummary } from '@weft/sdk/browser';
import { useState } from 'react';
import { Link } from 'wouter';
import { useClient } from '../client-context';
import { ErrorNote } from '../components/ErrorNote';
import { ListFooter } from '../components/ListFooter';
import { RunStatus } from '../components/RunStatus';
import { formatCredits, formatDate, formatPercent, STATUS_LABEL, shortId } from '../format';
import { usePages } from '../use-pages';

type Kind = 'agent' | 'app';

/** The organization's runs, newest first, filtered by status, agent or app, and external id. */
export function RunsPage() {
  const client = useClient();
  const [kind, setKind] = useState<Kind>('agent');
  const [status, setStatus] = useState<Status | ''>('');
  const [target, setTarget] = useState('');
  const [externalId, setExternalId] = useState('');
  const [cancelError, setCancelError] = useState<unknown>();
  const filters = {
    ...(status ? { status } : {}),
    ...(externalId.trim() ? { external_id: externalId.trim() } : {}),
  };
  const id = target.trim();
  const runs = usePages<RunSummary | AppRunSummary>(
    (signal) =>
      kind === 'app'
        ? client.appRuns.list({ ...filters, ...(id ? { app_id: id } : {}) }, { signal })
        : client.runs.list({ ...filters, ...(id ? { agent_id: id } : {}) }, { signal }),
    25,
    [client, kind, status, id, externalId],
  );

  async function cancel(runId: string) {
    setCancelError(undefined);
    try {
      await client.cancel({ kind, id: runId });
      runs.reload();
    } catch (err) {
      setCancelError(err);
    }
  }

  const base = kind === 'app' ? '/app-runs' : '/runs';
  return (
    <section>
      <h1>Runs</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter runs">
        <label>
          Runs of
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            <option value="agent">Agents</option>
            <option value="app">Apps</option>
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
            <option value="">Any</option>
            {Object.entries(STATUS_LABEL).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          {kind === 'app' ? 'App id' : 'Agent id'}
          <input value={target} onChange={(e) => setTarget(e.target.value)} />
        </label>
        <label>
          External id
          <input value={externalId} onChange={(e) => setExternalId(e.target.value)} />
        </label>
      </form>
      <ErrorNote error={runs.error} />
      <ErrorNote error={cancelError} />
      <div className="overflow-auto">
        <table>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Created</th>
              <th scope="col">Cost</th>
              <th scope="col">External id</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.items.map((run) => (
              <tr key={run.id}>
                <td>
                  <Link href={`${base}/${run.id}`}>{shortId(run.id)}</Link>
                </td>
                <td>
                  <RunStatus run={run} />
                </td>
                <td>{formatPercent(run.progress)}</td>
                <td>{formatDate(run.created_at)}</td>
                <td>{formatCredits(run.cost)}</td>
                <td>{run.external_id ?? ''}</td>
                <td>
                  {run.status === 'in_progress' && (
                    <button
                      type="button"
                      className="secondary outline"
                      aria-label={`Cancel run ${shortId(run.id)}`}
                      onClick={() => void cancel(run.id)}
                    >
                      Cancel
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ListFooter pages={runs} empty="No run matches." />
    </section>
  );
}
