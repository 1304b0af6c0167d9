import { useState } from 'react';
import type { Field } from './fields';
import { MediaField } from './MediaField';

export interface Brand {
  name: string;
  colors: string[];
  tone?: string;
  logo?: string[];
}

/** A brand: its name, colours (hex), tone, and optionally a logo uploaded like any image. */
export function BrandField({
  field,
  value,
  onChange,
}: {
  field: Field;
  value: Brand | undefined;
  onChange(brand: Brand): void;
}) {
  const [brand, setBrand] = useState<Brand>(value ?? { name: '', colors: ['#1d4ed8', '#f59e0b'] });
  const update = (patch: Partial<Brand>) => {
    const next = { ...brand, ...patch };
    setBrand(next);
    onChange(next);
  };
  const id = (part: string) => `input-${field.id}-${part}`;
  return (
    <fieldset className="brand-field">
      <legend>
        {field.label}
        {field.required ? ' (required)' : ''}
      </legend>
      <label htmlFor={id('name')}>Brand name</label>
      <input id={id('name')} value={brand.name} onChange={(e) => update({ name: e.target.value })} />
      <div className="colors">
        {brand.colors.map((color, i) => (
          <label key={i}>
            Colour {i + 1}
            <input
              type="color"
              value={color}
              onChange={(e) => update({ colors: brand.colors.map((c, j) => (j === i ? e.target.value : c)) })}
            />
          </label>
        ))}
        <button
          type="button"
          className="secondary outline"
          onClick={() => update({ colors: [...brand.colors, '#000000'] })}
        >
          Add a colour
        </button>
      </div>
      <label htmlFor={id('tone')}>Tone (optional)</label>
      <input id={id('tone')} value={brand.tone ?? ''} onChange={(e) => update({ tone: e.target.value || undefined })} />
      <MediaField
        field={{ id: `${field.id}-logo`, label: 'Logo (optional)', kind: 'image', required: false }}
        value={brand.logo ?? []}
        onChange={(ids) => update({ logo: ids.length ? ids : undefined })}
      />
    </fieldset>
  );
}

/** The brand as a run input: `logo` is one asset id. */
export function brandValue(brand: Brand): Record<string, unknown> {
  const { logo, ...rest } = brand;
  return { ...rest, ...(logo?.[0] ? { logo: logo[0] } : {}) };
}
