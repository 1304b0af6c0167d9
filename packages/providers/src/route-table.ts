import { NODE_TYPES, type NodeType } from '@weft/contracts';

/** Where NODE_ROUTES sends a node type: a provider, and a model when it names one. */
export interface RouteEntry {
  provider: string;
  model?: string;
}

export type RouteTable = ReadonlyMap<NodeType, RouteEntry>;

const TYPES = new Set<string>(NODE_TYPES);

/**
 * NODE_ROUTES: comma-separated `type=provider[:model]` entries, e.g.
 * `llm=openai:gpt-4o-mini,image_generation=fal:fal-ai/flux/dev`. The model
 * may itself hold colons and slashes (everything after the first colon).
 * Throws an Error naming the entry that does not parse.
 */
export function parseRouteTable(text: string | undefined): RouteTable {
  const table = new Map<NodeType, RouteEntry>();
  for (const raw of (text ?? '').split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const match = /^([a-z0-9_]+)=([a-z0-9_-]+)(?::(.+))?$/.exec(entry);
    if (!match) throw new Error(`NODE_ROUTES: '${entry}' is not type=provider[:model]`);
    const [, type, provider, model] = match as unknown as [string, string, string, string | undefined];
    if (!TYPES.has(type)) throw new Error(`NODE_ROUTES: '${type}' is not a node type`);
    if (table.has(type as NodeType)) throw new Error(`NODE_ROUTES: '${type}' is routed twice`);
    table.set(type as NodeType, model ? { provider, model: model.trim() } : { provider });
  }
  return table;
}
