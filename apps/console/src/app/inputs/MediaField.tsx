import type { Asset } from '@weft/sdk/browser';
import { useState } from 'react';
import { useClient } from '../client-context';
import { AssetPreview } from '../components/AssetPreview';
import { ErrorNote } from '../components/ErrorNote';
import { useAssets } from '../use-assets';
import { ACCEPT, type Field } from './fields';

interface Upload {
  name: string;
  sent: number;
  total: number;
  asset?: Asset;
  error?: unknown;
}

/**
 * A media input: files chosen here are uploaded at once, each with its own
 * progress bar; the value is the uploaded assets' ids. With `options` (an
 * app's allowed assets) the person picks among those instead.
 */
export function MediaField({
  field,
  value,
  onChange,
}: {
  field: Field;
  value: string[];
  onChange(assetIds: string[]): void;
}) {
  if (field.options) return <OptionPicker field={field} value={value} onChange={onChange} />;
  return <UploadPicker field={field} value={value} onChange={onChange} />;
}

function UploadPicker({ field, value, onChange }: { field: Field; value: string[]; onChange(ids: string[]): void }) {
  const client = useClient();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const multiple = (field.maxSelections ?? 1) > 1;

  async function choose(files: FileList | null) {
    if (!files || files.length === 0) return;
    const chosen = Array.from(files);
    const base = multiple ? uploads : [];
    const start = base.length;
    setUploads([...base, ...chosen.map((f) => ({ name: f.name, sent: 0, total: f.size }))]);
    const ids = multiple ? [...value] : [];
    if (!multiple) onChange([]);
    await Promise.all(
      chosen.map(async (file, i) => {
        const update = (patch: Partial<Upload>) =>
          setUploads((all) => all.map((u, j) => (j === start + i ? { ...u, ...patch } : u)));
        try {
          const asset = await client.upload(file, {
            filename: file.name,
            onProgress: (sent, total) => update({ sent, total }),
          });
          update({ asset, sent: file.size, total: file.size });
          ids.push(asset.id);
          onChange([...ids]);
        } catch (error) {
          update({ error });
        }
      }),
    );
  }

  const inputId = `input-${field.id}`;
  return (
    <div className="media-field">
      <label htmlFor={inputId}>
        {field.label}
        {field.required ? ' (required)' : ''}
      </label>
      <input
        id={inputId}
        type="file"
        accept={ACCEPT[field.kind]}
        multiple={multiple}
        onChange={(e) => void choose(e.target.files)}
      />
      {uploads.map((u, i) => (
        <div key={i} className="upload">
          <label>
            {u.asset ? `${u.name}: uploaded` : u.error ? `${u.name}: failed` : `Uploading ${u.name}`}
            <progress value={u.sent} max={u.total || 1} />
          </label>
          {u.asset && <AssetPreview asset={u.asset} small />}
          <ErrorNote error={u.error} />
        </div>
      ))}
    </div>
  );
}

function OptionPicker({ field, value, onChange }: { field: Field; value: string[]; onChange(ids: string[]): void }) {
  const assets = useAssets(field.options!);
  const max = field.maxSelections ?? 1;
  const toggle = (id: string, on: boolean) => {
    if (max === 1) return onChange(on ? [id] : []);
    onChange(on ? [...value, id].slice(0, max) : value.filter((v) => v !== id));
  };
  return (
    <fieldset>
      <legend>
        {field.label}
        {selectionHint(field)}
      </legend>
      {field.options!.map((id) => {
        const asset = assets.data?.get(id);
        return (
          <label key={id}>
            <input
              type={max === 1 ? 'radio' : 'checkbox'}
              name={field.id}
              checked={value.includes(id)}
              onChange={(e) => toggle(id, e.target.checked)}
            />
            {asset ? <AssetPreview asset={asset} small /> : <span>{id}</span>}
          </label>
        );
      })}
    </fieldset>
  );
}

export function selectionHint(field: Field): string {
  const { minSelections: min, maxSelections: max } = field;
  if (min !== undefined && max !== undefined) return min === max ? ` (choose ${min})` : ` (choose ${min} to ${max})`;
  if (max !== undefined) return ` (up to ${max})`;
  if (min !== undefined) return ` (at least ${min})`;
  return field.required ? ' (required)' : '';
}
