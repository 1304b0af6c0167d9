import type { AgentInput, AppInput } from '@weft/contracts';

/** What a run input must look like, whether it comes from an agent's or an app's definition. */
export interface InputSpec {
  id: string;
  kind: 'text' | 'image' | 'video' | 'audio' | 'file' | 'brand';
  required: boolean;
  options?: string[] | null | undefined;
  min?: number | null | undefined;
  max?: number | null | undefined;
}

const KIND_OF_NODE: Record<string, InputSpec['kind']> = {
  text_input: 'text',
  image_input: 'image',
  video_input: 'video',
  audio_input: 'audio',
  file_input: 'file',
  brand_system_input: 'brand',
};

export function agentInputSpecs(inputs: AgentInput[]): InputSpec[] {
  return inputs.map((i) => ({ id: i.id, kind: KIND_OF_NODE[i.type] ?? 'text', required: i.required ?? true }));
}

export function appInputSpecs(inputs: AppInput[]): InputSpec[] {
  return inputs.map((i) => ({
    id: i.id,
    kind: i.type,
    required: i.required,
    options: i.options,
    min: i.min_selections,
    max: i.max_selections,
  }));
}
