import type { AgentInput, AppInput } from '@weft/contracts';
import { definitionOf, isDefinedNodeType } from '@weft/nodes';

/** What a run input must look like, whether it comes from an agent's or an app's definition. */
export interface InputSpec {
  id: string;
  kind: 'text' | 'image' | 'video' | 'audio' | 'file' | 'brand';
  required: boolean;
  options?: string[] | null | undefined;
  min?: number | null | undefined;
  max?: number | null | undefined;
}

export function agentInputSpecs(inputs: AgentInput[]): InputSpec[] {
  return inputs.map((i) => ({
    id: i.id,
    kind: (isDefinedNodeType(i.type) ? definitionOf(i.type).runInput : undefined) ?? 'text',
    required: i.required ?? true,
  }));
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
