import { WeftApiError, WeftConnectionError } from '@weft/sdk/browser';

/** What went wrong, as the API said it: its detail and, for a 422, each field's problem. */
export function describeError(error: unknown): { title: string; lines: string[] } {
  if (error instanceof WeftApiError) {
    if (error.details) {
      const lines = error.details.map((issue) => `${issue.loc.join(' › ')}: ${issue.msg}`);
      return { title: 'Some values were not accepted:', lines };
    }
    return { title: error.detail ?? error.message, lines: [] };
  }
  if (error instanceof WeftConnectionError) {
    return { title: 'The gateway could not be reached. Check your connection and try again.', lines: [] };
  }
  return { title: error instanceof Error ? error.message : String(error), lines: [] };
}

export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const { title, lines } = describeError(error);
  return (
    <div role="alert" className="error-note">
      <strong>{title}</strong>
      {lines.length > 0 && (
        <ul>
          {lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
