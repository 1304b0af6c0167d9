import type { AgentSummary, AppSummary } from '@weft/sdk/browser';
import { useState } from 'react';
import { Link } from 'wouter';
import { useClient } from '../client-context';
import { ErrorNote } from '../components/ErrorNote';
import { formatCredits } from '../format';
import { takePage } from '../pages-of';
import { useLoad } from '../use-load';

const SCOPES = {
  runnable: { label: 'Everything I can run', visibility: ['private', 'shared', 'public'] as const },
  mine: { label: 'My organization’s', owned: true },
  public: { label: 'Public', visibility: ['public'] as const },
};
type Scope = keyof typeof SCOPES;

/** Agents and apps: search by name, filter by tag and visibility, open one to run it. */
export function CatalogPage() {
  const client = useClient();
  const [search, setSearch] = useState('');
  const [tag, setTag] = useState('');
  const [scope, setScope] = useState<Scope>('runnable');
  const query = (() => {
    const s = SCOPES[scope];
    return {
      ...(search.trim() ? { search: search.trim() } : {}),
      ...('owned' in s ? { owned: true } : { visibility: [...s.visibility] }),
    };
  })();
  const tags = tag.trim() ? [tag.trim()] : undefined;
  const agents = useLoad(
    (signal) => takePage(client.agents.list({ ...query, ...(tags ? { tags } : {}), limit: 50 }, { signal }), 50),
    [client, search, tag, scope],
  );
  const apps = useLoad(
    // Apps carry no tags: a tag filter shows agents only.
    (signal) =>
      tags
        ? Promise.resolve([] as AppSummary[])
        : takePage(
            client.apps.list(
              { ...query, visibility: 'visibility' in query ? [...query.visibility] : undefined, limit: 50 },
              { signal },
            ),
            50,
          ),
    [client, search, tag, scope],
  );

  return (
    <section>
      <h1>Agents and apps</h1>
      <form role="search" className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search by name
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        </label>
        <label>
          Tag
          <input type="text" value={tag} onChange={(e) => setTag(e.target.value)} placeholder="e.g. image" />
        </label>
        <label>
          Show
          <select value={scope} onChange={(e) => setScope(e.target.value as Scope)}>
            {Object.entries(SCOPES).map(([value, s]) => (
              <option key={value} value={value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <h2>Apps</h2>
      <ErrorNote error={apps.error} />
      <CardList items={apps.data} loading={apps.loading} kind="apps" empty="No app matches." />
      <h2>Agents</h2>
      <ErrorNote error={agents.error} />
      <CardList items={agents.data} loading={agents.loading} kind="agents" empty="No agent matches." />
    </section>
  );
}

function CardList({
  items,
  loading,
  kind,
  empty,
}: {
  items: (AgentSummary | AppSummary)[] | undefined;
  loading: boolean;
  kind: 'agents' | 'apps';
  empty: string;
}) {
  if (!items) return <p aria-busy={loading}>{loading ? 'Loading…' : ''}</p>;
  if (items.length === 0) return <p>{empty}</p>;
  return (
    <ul className="cards">
      {items.map((item) => (
        <li key={item.id}>
          <article>
            <h3>
              <Link href={`/${kind}/${item.id}`}>{item.name}</Link>
            </h3>
            <p>{item.description}</p>
            <footer>
              <small>
                {formatCredits(item.estimated_cost)} · {item.visibility}
                {'tags' in item && item.tags?.length ? ` · ${item.tags.join(', ')}` : ''}
                {'has_human_review' in item && item.has_human_review ? ' · asks for a review' : ''}
              </small>
            </footer>
          </article>
        </li>
      ))}
    </ul>
  );
}
