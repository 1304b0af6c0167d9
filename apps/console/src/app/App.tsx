import { useMemo, useState } from 'react';
import { Redirect, Route, Router, Switch } from 'wouter';
import { SessionContext, type Session } from './client-context';
import { Shell } from './components/Shell';
import { AssetsPage } from './pages/AssetsPage';
import { CatalogPage } from './pages/CatalogPage';
import { LaunchPage } from './pages/LaunchPage';
import { ReviewPage } from './pages/ReviewPage';
import { ReviewsPage } from './pages/ReviewsPage';
import { RunPage } from './pages/RunPage';
import { RunsPage } from './pages/RunsPage';
import { SignInPage } from './pages/SignInPage';
import { clientFor, forgetKey, storedKey, storeKey } from './session';

/** Every page lives under /console/ (the gateway answers index.html for each). */
export const BASE = '/console';

export function App() {
  const [apiKey, setApiKey] = useState(storedKey);
  const session = useMemo<Session | undefined>(
    () =>
      apiKey
        ? {
            client: clientFor(apiKey),
            signOut: () => {
              forgetKey();
              setApiKey(undefined);
            },
          }
        : undefined,
    [apiKey],
  );
  return (
    <Router base={BASE}>
      {!session ? (
        <SignInPage
          onSignedIn={(key) => {
            storeKey(key);
            setApiKey(key);
          }}
        />
      ) : (
        <SessionContext.Provider value={session}>
          <Shell>
            <Switch>
              <Route path="/">
                <Redirect to="/catalog" replace />
              </Route>
              <Route path="/catalog" component={CatalogPage} />
              <Route path="/agents/:id">{(p) => <LaunchPage kind="agent" id={p.id} />}</Route>
              <Route path="/apps/:id">{(p) => <LaunchPage kind="app" id={p.id} />}</Route>
              <Route path="/runs" component={RunsPage} />
              <Route path="/runs/:id">{(p) => <RunPage kind="agent" id={p.id} />}</Route>
              <Route path="/app-runs/:id">{(p) => <RunPage kind="app" id={p.id} />}</Route>
              <Route path="/reviews" component={ReviewsPage} />
              <Route path="/reviews/:kind/:id">
                {(p) => <ReviewPage kind={p.kind === 'app-runs' ? 'app' : 'agent'} id={p.id} />}
              </Route>
              <Route path="/assets" component={AssetsPage} />
              <Route>
                <section>
                  <h1>Not found</h1>
                  <p>There is no page here.</p>
                </section>
              </Route>
            </Switch>
          </Shell>
        </SessionContext.Provider>
      )}
    </Router>
  );
}
