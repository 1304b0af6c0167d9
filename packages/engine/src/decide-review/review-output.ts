import { readReviewedAssets } from '@weft/assets';
import type { ProposedOutput } from '@weft/contracts';
import { isUuid } from '@weft/contracts';
import { invalid, ValidationError, type ValidationIssue } from '@weft/errors';
import type { NodeValue } from '@weft/nodes';
import type { PoolClient } from 'pg';

const MEDIA_OF: Record<string, string> = { images: 'image', videos: 'video', audio: 'audio', files: 'file' };

/**
 * Checks an approval's `output` against the proposal (docs/api.md#approve):
 * present, the same single key, a non-empty list of the right items;
 * asset ids must exist, be readable by `orgId` and be of the proposal's media
 * type. Returns the node's new output: exactly what the reviewer kept.
 */
export async function approvedOutput(
  client: PoolClient,
  orgId: string,
  proposal: ProposedOutput,
  proposed: NodeValue,
  output: Record<string, unknown> | undefined,
): Promise<NodeValue> {
  const loc = ['body', 'output'];
  if (output === undefined) throw invalid(loc, 'output is required when the decision is approve', 'missing');
  const key = 'prompts' in proposal ? 'prompts' : 'asset_ids';
  const extra = Object.keys(output).filter((k) => k !== key);
  if (extra.length > 0) {
    throw invalid(
      [...loc, extra[0]!],
      `output must have the shape of the proposal: {${key}: [...]}`,
      'extra_forbidden',
    );
  }
  const items = output[key];
  if (!Array.isArray(items)) throw invalid([...loc, key], `${key} must be a list`, 'list_type', items);
  if (items.length === 0) throw invalid([...loc, key], 'At least one item is required', 'too_short', items);

  if (key === 'prompts') {
    const bad = items.findIndex((p) => typeof p !== 'string');
    if (bad >= 0) throw invalid([...loc, key, bad], 'Each prompt must be a string', 'string_type', items[bad]);
    const prompts = items as string[];
    if (typeof proposed.value === 'string' && prompts.length === 1) return { type: 'text', value: prompts[0] };
    return { type: proposed.type === 'text' ? 'data' : proposed.type, value: prompts };
  }

  const issues: ValidationIssue[] = [];
  items.forEach((id, i) => {
    if (!isUuid(id)) {
      issues.push({ loc: [...loc, key, i], msg: 'Each asset id must be a UUID', type: 'uuid_parsing', input: id });
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);
  const ids = items as string[];
  const found = await readReviewedAssets(client, orgId, ids);
  const media = MEDIA_OF[proposed.type];
  ids.forEach((id, i) => {
    const type = found.get(id.toLowerCase());
    if (!type) {
      issues.push({
        loc: [...loc, key, i],
        msg: `Asset ${id} not found or not accessible`,
        type: 'not_found',
        input: id,
      });
    } else if (media && type !== media) {
      issues.push({ loc: [...loc, key, i], msg: `Asset ${id} is not of type ${media}`, type: 'media_type', input: id });
    }
  });
  if (issues.length > 0) throw new ValidationError(issues);
  return { type: proposed.type, value: ids };
}
