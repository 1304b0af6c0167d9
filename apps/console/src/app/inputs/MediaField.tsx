import { AssetPreview } from '../components/AssetPreview';
import { UploadList } from '../components/UploadList';
import { useAssets } from '../use-assets';
import { useUploads } from '../use-uploads';
import { ACCEPT, type Field } from './fields';

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
  const uploads = useUploads();
  const multiple = (field.maxSelections ?? 1) > 1;

  async function choose(files: FileList | null) {
    if (!files || files.length === 0) return;
    const ids = multiple ? [...value] : [];
    if (!multiple) onChange([]);
    await uploads.send(Array.from(files), {
      replace: !multiple,
      onUploaded: (asset) => {
        ids.push(asset.id);
        onChange([...ids]);
      },
    });
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
      <UploadList uploads={uploads.list} />
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
