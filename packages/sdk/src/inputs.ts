import { createHash } from 'node:crypto';
import { isFileSource, type FileSource } from './upload';
import type { RunInput } from './types';

// Run inputs as a caller writes them (docs/api.md#run-inputs): text, asset
// ids, a brand object, or files to upload first.

/**
 * Text (a string; numbers and booleans are sent as text), a file or a list of
 * files (uploaded first, then sent as `{asset_ids}`), or any other value the
 * input takes as it is (`{asset_ids: [...]}`, a brand object).
 */
export type InputValue =
  string | number | boolean | FileSource | FileSource[] | { asset_ids: string[] } | Record<string, unknown> | unknown[];

/** Inputs by id (`{topic: 'tea', photo: file('photo.png')}`), or the API's list of `{id, value}`. */
export type RunInputs = Record<string, InputValue> | { id: string; value: InputValue }[];

export type UploadInput = (source: FileSource, inputId: string, index: number) => Promise<{ id: string }>;

/** The inputs as the API takes them, the files among them uploaded (one after another, in order). */
export async function prepareInputs(inputs: RunInputs, upload: UploadInput): Promise<RunInput[]> {
  const entries = Array.isArray(inputs) ? inputs.map((i) => [i.id, i.value] as const) : Object.entries(inputs);
  const out: RunInput[] = [];
  for (const [id, value] of entries) {
    const files = isFileSource(value) ? [value] : isFileList(value) ? value : undefined;
    if (files) {
      const assetIds: string[] = [];
      for (const [index, source] of files.entries()) assetIds.push((await upload(source, id, index)).id);
      out.push({ id, value: { asset_ids: assetIds } });
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      out.push({ id, value: String(value) });
    } else {
      out.push({ id, value: value as RunInput['value'] });
    }
  }
  return out;
}

function isFileList(value: unknown): value is FileSource[] {
  return Array.isArray(value) && value.length > 0 && value.every(isFileSource);
}

/**
 * The external_id of a file uploaded for a run that has one: derived from the
 * run's, so that running again with the same external_id reuses the uploads
 * instead of storing the files twice.
 */
export function inputUploadKey(runExternalId: string, inputId: string, index: number): string {
  const digest = createHash('sha256').update(`${runExternalId}\n${inputId}\n${index}`).digest('hex');
  return `run-input:${digest}`;
}
