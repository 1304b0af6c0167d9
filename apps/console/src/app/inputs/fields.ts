import type { Agent, App } from '@weft/sdk/browser';

// One description of a form field for both agents (their input nodes) and
// apps (their curated inputs, which may restrict values and selections).

export type FieldKind = 'text' | 'image' | 'video' | 'audio' | 'file' | 'brand';

export interface Field {
  id: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  /** Allowed values: labels for text, asset ids for media. */
  options?: string[];
  minSelections?: number;
  maxSelections?: number;
}

const NODE_KINDS: Record<string, FieldKind> = {
  text_input: 'text',
  image_input: 'image',
  video_input: 'video',
  audio_input: 'audio',
  file_input: 'file',
  brand_system_input: 'brand',
};

export function agentFields(agent: Agent): Field[] {
  return (agent.inputs ?? []).map((input) => ({
    id: input.id,
    label: input.description || input.id,
    kind: NODE_KINDS[input.type] ?? 'text',
    required: input.required,
  }));
}

export function appFields(app: App): Field[] {
  return (app.inputs ?? []).map((input) => ({
    id: input.id,
    label: input.name,
    kind: input.type,
    required: input.required,
    ...(input.options ? { options: input.options } : {}),
    ...(input.min_selections != null ? { minSelections: input.min_selections } : {}),
    ...(input.max_selections != null ? { maxSelections: input.max_selections } : {}),
  }));
}

export const isMedia = (kind: FieldKind) => kind !== 'text' && kind !== 'brand';

/** Accept attribute of a file picker for a media kind. */
export const ACCEPT: Record<FieldKind, string | undefined> = {
  image: 'image/*',
  video: 'video/*',
  audio: 'audio/*',
  file: undefined,
  text: undefined,
  brand: undefined,
};
