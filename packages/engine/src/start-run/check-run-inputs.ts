import { readInputAssets } from '@weft/assets';
import { isUuid, type RunInput } from '@weft/contracts';
import type { Db } from '@weft/db';
import type { ValidationIssue } from '@weft/errors';
import { FONT_EXTENSIONS, RASTER_EXTENSIONS, type MediaExtension } from '@weft/media';
import { parseBrand } from '@weft/nodes';
import type { InputSpec } from './input-specs';

interface AssetRef {
  id: string;
  /** A media type; or `font`, a font file; or `logo`, an image the image nodes decode (not SVG). */
  media: string;
  loc: (string | number)[];
}

/**
 * Every problem with the inputs of a run request (docs/api.md#run-inputs):
 * unknown or repeated ids, missing required inputs, values of the wrong shape
 * (text: a string; assets: `{asset_ids: [uuid, ...]}`), values outside an
 * input's `options` or selection bounds, and asset ids that do not exist, are
 * not readable by the caller or are not of the input's media type. A brand
 * is checked whole: its shape, its colours, and its logo (an image) and fonts
 * (font files) as assets.
 * Agent runs report these as 422, app runs as 400. Nothing is written.
 */
export async function checkRunInputs(
  db: Db,
  orgId: string,
  specs: InputSpec[],
  given: RunInput[],
): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const byId = new Map(specs.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const assets: AssetRef[] = [];

  given.forEach((input, i) => {
    const loc = ['body', 'inputs', i];
    const spec = byId.get(input.id);
    if (!spec) {
      issues.push({ loc: [...loc, 'id'], msg: `Unknown input '${input.id}'`, type: 'unknown_input', input: input.id });
      return;
    }
    if (seen.has(input.id)) {
      issues.push({
        loc: [...loc, 'id'],
        msg: `Input '${input.id}' is given twice`,
        type: 'duplicate_input',
        input: input.id,
      });
      return;
    }
    seen.add(input.id);
    const values = selectedValues(spec, input.value);
    if (!values) {
      const shape =
        spec.kind === 'text' ? 'a string' : spec.kind === 'brand' ? 'a string or an object' : '{asset_ids: [...]}';
      issues.push({
        loc: [...loc, 'value'],
        msg: `Input '${input.id}' must be ${shape}`,
        type: 'value_error',
        input: input.value,
      });
      return;
    }
    if (spec.options && spec.options.length > 0) {
      const outside = values.filter((v) => !spec.options!.includes(v));
      if (outside.length > 0) {
        issues.push({
          loc: [...loc, 'value'],
          msg: `Input '${input.id}' must be one of the options ${JSON.stringify(spec.options)}`,
          type: 'enum',
          input: input.value,
          ctx: { expected: spec.options },
        });
      }
    }
    if (spec.min != null && values.length < spec.min) {
      issues.push({
        loc: [...loc, 'value'],
        msg: `Input '${input.id}' needs at least ${spec.min} value(s)`,
        type: 'too_short',
        input: input.value,
        ctx: { min_selections: spec.min },
      });
    }
    if (spec.max != null && values.length > spec.max) {
      issues.push({
        loc: [...loc, 'value'],
        msg: `Input '${input.id}' accepts at most ${spec.max} value(s)`,
        type: 'too_long',
        input: input.value,
        ctx: { max_selections: spec.max },
      });
    }
    if (spec.kind === 'brand') {
      const brand = parseBrand(input.value);
      if ('issues' in brand) {
        for (const issue of brand.issues) {
          issues.push({
            loc: [...loc, 'value', ...issue.path],
            msg: `Input '${input.id}' is not a valid brand: ${issue.message}`,
            type: 'value_error',
            input: input.value,
          });
        }
        return;
      }
      const { logo, fonts } = brand.brand;
      if (logo) assets.push({ id: logo, media: 'logo', loc: [...loc, 'value', 'logo'] });
      fonts.forEach((id, j) => assets.push({ id, media: 'font', loc: [...loc, 'value', 'fonts', j] }));
    } else if (spec.kind !== 'text') {
      values.forEach((id, j) => assets.push({ id, media: spec.kind, loc: [...loc, 'value', 'asset_ids', j] }));
    }
  });

  for (const spec of specs) {
    if (spec.required && !seen.has(spec.id)) {
      issues.push({
        loc: ['body', 'inputs'],
        msg: `Input '${spec.id}' is required`,
        type: 'missing',
        ctx: { id: spec.id },
      });
    }
  }
  issues.push(...(await checkAssets(db, orgId, assets)));
  return issues;
}

/** The values an input selects (one text, several labels, the asset ids); undefined when the shape is wrong. */
function selectedValues(spec: InputSpec, value: unknown): string[] | undefined {
  if (spec.kind === 'brand') return value !== null && value !== undefined ? [JSON.stringify(value)] : undefined;
  if (spec.kind === 'text') {
    if (typeof value === 'string') return [value];
    // A fixed-set text input may carry several labels, as its selection bounds allow.
    if (spec.options && Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const ids = (value as { asset_ids?: unknown }).asset_ids;
  if (keys.length !== 1 || !Array.isArray(ids) || ids.length === 0) return undefined;
  if (!ids.every(isUuid)) return undefined;
  return (ids as string[]).map((id) => id.toLowerCase());
}

async function checkAssets(db: Db, orgId: string, refs: AssetRef[]): Promise<ValidationIssue[]> {
  if (refs.length === 0) return [];
  const rows = await readInputAssets(db, orgId, [...new Set(refs.map((r) => r.id))]);
  const found = new Map(rows.map((r) => [r.id, r]));
  const issues: ValidationIssue[] = [];
  for (const ref of refs) {
    const asset = found.get(ref.id);
    const type = asset?.media_type;
    if (!asset || !type) {
      issues.push({
        loc: ref.loc,
        msg: `Asset ${ref.id} not found or not accessible`,
        type: 'asset_not_found',
        input: ref.id,
      });
    } else if (ref.media === 'font' || ref.media === 'logo') {
      const fits =
        ref.media === 'font'
          ? FONT_EXTENSIONS.has(asset.media_extension)
          : RASTER_EXTENSIONS.has(asset.media_extension as MediaExtension);
      if (!fits) {
        const expected =
          ref.media === 'font' ? 'a font file (ttf, otf, woff, woff2)' : 'a raster image (png, jpg, webp...)';
        issues.push({
          loc: ref.loc,
          msg: `Asset ${ref.id} is ${asset.media_extension}, not ${expected}`,
          type: 'media_type',
          input: ref.id,
          ctx: { expected: ref.media === 'font' ? 'font' : 'image' },
        });
      }
    } else if (type !== ref.media) {
      issues.push({
        loc: ref.loc,
        msg: `Asset ${ref.id} is ${type === 'image' ? 'an' : 'a'} ${type}, not ${ref.media === 'image' ? 'an' : 'a'} ${ref.media}`,
        type: 'media_type',
        input: ref.id,
        ctx: { expected: ref.media },
      });
    }
  }
  return issues;
}
