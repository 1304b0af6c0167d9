import { isFileDataType } from '@weft/contracts';
import type { NodeContext, NodeValue } from './types';
import { NodeFailure } from './types';

// Reading ports and params with failures that name the node and what was wrong.

/** The single value at `port`; a list port with one entry counts as one value. */
export function single(ctx: NodeContext, port: string): NodeValue {
  const raw = ctx.inputs[port];
  const value = Array.isArray(raw) ? (raw.length === 1 ? raw[0] : undefined) : raw;
  if (!value) throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' needs exactly one input at '${port}'`);
  return value;
}

/** Every value at `port`, in link order (empty when the port is not linked). */
export function many(ctx: NodeContext, port: string): NodeValue[] {
  const raw = ctx.inputs[port];
  if (raw === undefined) return [];
  return Array.isArray(raw) ? raw : [raw];
}

/** A value as text: strings as they are, lists of strings joined by newlines, anything else as JSON. */
export function asText(value: NodeValue): string {
  if (typeof value.value === 'string') return value.value;
  if (Array.isArray(value.value) && value.value.every((v) => typeof v === 'string')) return value.value.join('\n');
  if (value.value === null || value.value === undefined) return '';
  return JSON.stringify(value.value);
}

/** A value as a list: lists as they are, a single item as a one-element list. */
export function asList(value: NodeValue): unknown[] {
  if (Array.isArray(value.value)) return value.value;
  return value.value === null || value.value === undefined ? [] : [value.value];
}

export function isAssetValue(value: NodeValue): boolean {
  return isFileDataType(value.type);
}

export function assetIds(ctx: NodeContext, value: NodeValue): string[] {
  if (!isAssetValue(value) || !Array.isArray(value.value) || !value.value.every((v) => typeof v === 'string')) {
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' expects assets as its input`);
  }
  return value.value as string[];
}
