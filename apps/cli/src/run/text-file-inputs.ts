import fs from 'node:fs/promises';
import type { Target, WeftClient } from '@weft/sdk';
import { CliError } from '../io';
import type { CliInput } from './run-inputs';

// `id=@path` means the file's text for an input that takes text (like
// `curl -d @file`) and the file itself, uploaded, for a media input. Only the
// agent or app knows which of its inputs takes text, so this runs once the
// target is found.

/** The ids of the inputs of the agent or app that take text. */
export async function textInputIds(client: WeftClient, target: Target): Promise<Set<string>> {
  const ids =
    target.kind === 'agent'
      ? ((await client.agents.get(target.id)).inputs ?? []).filter((i) => i.type === 'text_input').map((i) => i.id)
      : ((await client.apps.get(target.id)).inputs ?? []).filter((i) => i.type === 'text').map((i) => i.id);
  return new Set(ids);
}

/** The inputs with each file given for a text input replaced by its content. */
export async function readTextFileInputs(inputs: CliInput[], textIds: Set<string>): Promise<CliInput[]> {
  const out: CliInput[] = [];
  for (const input of inputs) {
    if (input.kind === 'file' && textIds.has(input.id)) {
      out.push({ id: input.id, kind: 'text', value: await readText(input.id, input.path) });
    } else {
      out.push(input);
    }
  }
  return out;
}

// Fatal decoding: a binary file given for a text input is a mistake to report,
// not text to send with replacement characters. A leading BOM is dropped.
const utf8 = new TextDecoder('utf-8', { fatal: true });

async function readText(id: string, path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(path);
  } catch (err) {
    throw new CliError(`input "${id}": cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw new CliError(`input "${id}" takes text, and ${path} is not UTF-8 text`);
  }
}
