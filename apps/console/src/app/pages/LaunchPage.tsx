import type { Agent, App, RunInput } from '@weft/sdk/browser';
import { useMemo, useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { useClient } from '../client-context';
import { ErrorNote } from '../components/ErrorNote';
import { formatCredits } from '../format';
import { BrandField, brandValue, type Brand } from '../inputs/BrandField';
import { agentFields, appFields, isMedia, type Field } from '../inputs/fields';
import { MediaField, selectionHint } from '../inputs/MediaField';
import { useLoad } from '../use-load';

type Values = Record<string, string | string[] | Brand | undefined>;

/** An agent or an app, and the form that runs it. */
export function LaunchPage({ kind, id }: { kind: 'agent' | 'app'; id: string }) {
  const client = useClient();
  const target = useLoad<Agent | App>(
    (signal) => (kind === 'app' ? client.apps.get(id, { signal }) : client.agents.get(id, { signal })),
    [client, kind, id],
  );
  if (target.error) return <ErrorNote error={target.error} />;
  if (!target.data) return <p aria-busy="true">Loading…</p>;
  const fields = kind === 'app' ? appFields(target.data as App) : agentFields(target.data as Agent);
  return <RunForm kind={kind} target={target.data} fields={fields} />;
}

function RunForm({ kind, target, fields }: { kind: 'agent' | 'app'; target: Agent | App; fields: Field[] }) {
  const client = useClient();
  const [, navigate] = useLocation();
  const [values, setValues] = useState<Values>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  // One key per filled-in form: a double click or a retry after a lost answer starts one run.
  const externalId = useMemo(() => `console-${crypto.randomUUID()}`, []);
  const set = (fieldId: string, value: Values[string]) => setValues((v) => ({ ...v, [fieldId]: value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const inputs = toInputs(fields, values);
      const { run } =
        kind === 'app'
          ? await client.appRuns.create({ app_id: target.id, inputs, external_id: externalId })
          : await client.runs.create({ agent_id: target.id, inputs, external_id: externalId });
      navigate(kind === 'app' ? `/app-runs/${run.id}` : `/runs/${run.id}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <section>
      <hgroup>
        <h1>{target.name}</h1>
        <p>{target.description}</p>
      </hgroup>
      <form onSubmit={(e) => void submit(e)}>
        {fields.map((field) => (
          <FieldInput key={field.id} field={field} value={values[field.id]} onChange={(v) => set(field.id, v)} />
        ))}
        <p className="estimate">
          Estimated cost: <strong>{formatCredits(target.estimated_cost)}</strong>
        </p>
        <ErrorNote error={error} />
        <button type="submit" aria-busy={busy} disabled={busy}>
          Run
        </button>
      </form>
    </section>
  );
}

function FieldInput({
  field,
  value,
  onChange,
}: {
  field: Field;
  value: Values[string];
  onChange(value: Values[string]): void;
}) {
  const inputId = `input-${field.id}`;
  if (field.kind === 'brand') {
    return <BrandField field={field} value={value as Brand | undefined} onChange={onChange} />;
  }
  if (isMedia(field.kind)) {
    return <MediaField field={field} value={(value as string[] | undefined) ?? []} onChange={onChange} />;
  }
  if (field.options && (field.maxSelections ?? 1) > 1) {
    return <LabelPicker field={field} value={(value as string[] | undefined) ?? []} onChange={onChange} />;
  }
  if (field.options) {
    return (
      <>
        <label htmlFor={inputId}>
          {field.label}
          {selectionHint(field)}
        </label>
        <select
          id={inputId}
          required={field.required}
          value={(value as string | undefined) ?? ''}
          onChange={(e) => onChange(e.target.value || undefined)}
        >
          <option value="">Choose…</option>
          {field.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </>
    );
  }
  return (
    <>
      <label htmlFor={inputId}>
        {field.label}
        {field.required ? ' (required)' : ''}
      </label>
      <textarea
        id={inputId}
        rows={2}
        required={field.required}
        value={(value as string | undefined) ?? ''}
        onChange={(e) => onChange(e.target.value || undefined)}
      />
    </>
  );
}

/** Several labels of a text input's options, as many as its `max_selections`; sent as a list. */
function LabelPicker({
  field,
  value,
  onChange,
}: {
  field: Field;
  value: string[];
  onChange(value: string[] | undefined): void;
}) {
  const max = field.maxSelections!;
  const toggle = (label: string, on: boolean) => {
    const next = on ? [...value, label] : value.filter((v) => v !== label);
    onChange(next.length > 0 ? next : undefined);
  };
  return (
    <fieldset>
      <legend>
        {field.label}
        {selectionHint(field)}
      </legend>
      {field.options!.map((label) => (
        <label key={label}>
          <input
            type="checkbox"
            name={field.id}
            checked={value.includes(label)}
            disabled={!value.includes(label) && value.length >= max}
            onChange={(e) => toggle(label, e.target.checked)}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

/** The form's values as run inputs; left-out optional inputs are not sent. */
function toInputs(fields: Field[], values: Values): RunInput[] {
  const inputs: RunInput[] = [];
  for (const field of fields) {
    const value = values[field.id];
    if (value === undefined) continue;
    if (field.kind === 'brand') inputs.push({ id: field.id, value: brandValue(value as Brand) });
    else if (isMedia(field.kind)) {
      const ids = value as string[];
      if (ids.length > 0) inputs.push({ id: field.id, value: { asset_ids: ids } });
    } else inputs.push({ id: field.id, value: value as string | string[] });
  }
  return inputs;
}
