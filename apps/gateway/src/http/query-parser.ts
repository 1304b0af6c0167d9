import { parse } from 'node:querystring';

/**
 * Express's query parser, but `key[]=a&key[]=b` reads as `key=a&key=b`: the
 * spelling axios, PHP and Rails clients give repeated parameters. Left as it
 * was, `asset_ids[]` would be an unknown key the schema drops, and a list
 * meant to be filtered would answer unfiltered.
 */
export function parseQuery(query: string): Record<string, string | string[]> {
  const parsed = parse(query) as Record<string, string | string[]>;
  for (const key of Object.keys(parsed)) {
    if (!key.endsWith('[]') || key.length === 2) continue;
    const name = key.slice(0, -2);
    const values = ([] as string[]).concat(parsed[name] ?? [], parsed[key]!);
    delete parsed[key];
    parsed[name] = values;
  }
  return parsed;
}
