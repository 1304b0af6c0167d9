import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { file, type InputValue, type Target } from '@weft/sdk';

// `--input` values of `weft run`, and the external_id a command line stands for.

/**
 * One `--input`: `id=text`, `id=@path` (a file: its text for a text input,
 * uploaded for a media input), `id:=<json>` (a value as JSON), `id=@@text`
 * (text starting with @).
 */
export type CliInput =
  | { id: string; kind: 'text'; value: string }
  | { id: string; kind: 'file'; path: string }
  | { id: string; kind: 'json'; value: unknown };

/** Commander option parser: collects every --input, checking each as it comes. */
export function collectInput(raw: string, previous: CliInput[] = []): CliInput[] {
  const json = /^([^=:]+):=(.*)$/s.exec(raw);
  if (json) {
    try {
      return [...previous, { id: json[1]!, kind: 'json', value: JSON.parse(json[2]!) }];
    } catch (err) {
      throw new InvalidArgumentError(`${json[1]}:= needs JSON: ${(err as Error).message}`);
    }
  }
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError(`Expected id=value, id=@file or id:=json, got "${raw}".`);
  const id = raw.slice(0, eq);
  const value = raw.slice(eq + 1);
  if (value.startsWith('@@')) return [...previous, { id, kind: 'text', value: value.slice(1) }];
  if (value.startsWith('@')) {
    const path = value.slice(1);
    if (!fs.existsSync(path) || !fs.statSync(path).isFile()) {
      throw new InvalidArgumentError(`input "${id}": no such file ${path}`);
    }
    return [...previous, { id, kind: 'file', path }];
  }
  return [...previous, { id, kind: 'text', value }];
}

/** The inputs as @weft/sdk takes them: files of one id become a list. */
export function sdkInputs(inputs: CliInput[]): Record<string, InputValue> {
  const out: Record<string, InputValue> = {};
  for (const input of inputs) {
    if (input.kind !== 'file') {
      out[input.id] = input.value as InputValue;
      continue;
    }
    const previous = out[input.id];
    const one = file(input.path);
    out[input.id] =
      previous === undefined ? one : ([...(Array.isArray(previous) ? previous : [previous]), one] as never);
  }
  return out;
}

/**
 * The external_id of a command line: the agent or app it runs and its inputs,
 * files by their content. The same command after a crash, a timeout or a
 * Ctrl-C finds the run it started instead of starting another; running the same
 * inputs again on purpose needs --new (or another --external-id).
 */
export async function commandExternalId(target: Target, inputs: CliInput[]): Promise<string> {
  const parts: unknown[] = [];
  // By id, keeping the order of the values of one id (a list of files is ordered).
  const sorted = inputs
    .map((input, i) => ({ input, i }))
    .sort((a, b) => a.input.id.localeCompare(b.input.id) || a.i - b.i);
  for (const { input } of sorted) {
    if (input.kind === 'file') parts.push([input.id, 'file', await fileDigest(input.path)]);
    else parts.push([input.id, input.kind, input.value]);
  }
  const digest = createHash('sha256')
    .update(JSON.stringify({ kind: target.kind, id: target.id, inputs: parts }))
    .digest('hex');
  return `weft-cli:${digest}`;
}

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
