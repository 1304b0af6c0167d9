import fs from 'node:fs';
import { CreateAgentBody, CreateAppBody, FlowSchema, z } from '@weft/contracts';
import { CliError } from '../io';

// The catalog file format (documented in catalog/README.md): one agent with
// its flow, and the apps built on it. Field names and rules are those of
// POST /agents and POST /apps, so the server and this check agree.

export const CatalogAppSchema = CreateAppBody.omit({ agent_id: true }).strict();

export const CatalogFileSchema = CreateAgentBody.extend({
  kind: z.literal('agent'),
  flow: FlowSchema,
  apps: z.array(CatalogAppSchema).default([]),
}).strict();

export type CatalogFile = z.output<typeof CatalogFileSchema>;
export type CatalogApp = z.output<typeof CatalogAppSchema>;

/** Parses a catalog definition; problems are listed as `path: message`. */
export function parseCatalogFile(raw: unknown, source = 'catalog file'): CatalogFile {
  const result = CatalogFileSchema.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new CliError(`${source} is not a valid catalog file:\n${lines.join('\n')}`);
}

export function readCatalogFile(file: string): CatalogFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not JSON: ${(err as Error).message}`);
  }
  return parseCatalogFile(raw, file);
}
