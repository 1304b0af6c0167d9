import { WeftApiError } from '@weft/sdk/browser';
import { useState, type FormEvent } from 'react';
import { ErrorNote } from '../components/ErrorNote';
import { clientFor } from '../session';

/** Asks for an API key and keeps it only if the gateway accepts it. */
export function SignInPage({ onSignedIn }: { onSignedIn(apiKey: string): void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const apiKey = key.trim();
    if (!apiKey) return;
    setBusy(true);
    setError(undefined);
    try {
      const agents = clientFor(apiKey).agents.list({ limit: 1 });
      await agents.next();
      await agents.return(undefined);
      onSignedIn(apiKey);
    } catch (err) {
      setError(
        err instanceof WeftApiError && err.status === 401
          ? new Error('This API key was not accepted. Check it and try again.')
          : err,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="container sign-in">
      <article>
        <header>
          <h1>Sign in to Weft</h1>
        </header>
        <form onSubmit={(e) => void submit(e)}>
          <label htmlFor="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="off"
            required
            value={key}
            onChange={(e) => setKey(e.target.value)}
            aria-describedby="api-key-help"
          />
          <small id="api-key-help">Kept in this tab only, until you sign out or close it.</small>
          <ErrorNote error={error} />
          <button type="submit" aria-busy={busy} disabled={busy}>
            Sign in
          </button>
        </form>
      </article>
    </main>
  );
}
