import { DevEnv } from '@weft/cli';
import { MigrationEnvSchema } from '@weft/db';
import { GatewayEnv } from '@weft/gateway';
import { WorkerEnv } from '@weft/worker';
import { readText } from './files';

// docs/configuration.md is written by hand, for readers; this keeps it true to
// the schemas the processes parse their environment with, so that a new
// setting, a renamed one or a changed default cannot go unnoticed.

type Shape = Record<string, { safeParse(value: unknown): { success: boolean; data?: unknown } }>;

/** The readers a "Used by" cell names and whose schema the test can see, in the order defaults are taken from. */
const SCHEMAS: Record<string, Shape> = {
  gateway: GatewayEnv.shape,
  worker: WorkerEnv.shape,
  migrate: MigrationEnvSchema.shape,
  dev: DevEnv.shape,
};

/** Variables read without a schema, each by the file that must still read it. */
const READ_WITHOUT_SCHEMA: Record<string, { file: string; reads: string }> = {
  WEFT_URL: { file: 'apps/cli/src/io.ts', reads: 'env.WEFT_URL' },
  WEFT_API_KEY: { file: 'apps/cli/src/publish/command.ts', reads: 'env.WEFT_API_KEY' },
  WEFT_ADMIN_TOKEN: { file: 'apps/cli/src/commands/admin.ts', reads: 'env.WEFT_ADMIN_TOKEN' },
};

interface Row {
  names: string[];
  defaults: (string | undefined)[];
  usedBy: string[];
}

/** The rows of the variables table: names, the literal default of each (when the cell gives one), readers. */
function documentedRows(): Row[] {
  const lines = readText('docs/configuration.md')
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  return lines.map((line) => {
    const [variable = '', defaults = '', usedBy = ''] = line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim());
    const names = [...variable.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!);
    const parts = defaults.split(' / ');
    return {
      names,
      defaults: names.map((_, i) => (parts.length === names.length ? /^`([^`]*)`/.exec(parts[i]!)?.[1] : undefined)),
      usedBy: usedBy.split(',').map((reader) => reader.trim()),
    };
  });
}

const rows = documentedRows();
const documented = new Map(rows.flatMap((row) => row.names.map((name) => [name, row] as const)));
const readers = (name: string) => Object.keys(SCHEMAS).filter((reader) => name in SCHEMAS[reader]!);

test('the table lists variables', () => {
  expect(rows.length).toBeGreaterThan(50);
  for (const row of rows) expect(row.names.length).toBeGreaterThan(0);
});

test.each(Object.keys(SCHEMAS))('every variable the %s schema reads is documented', (reader) => {
  const missing = Object.keys(SCHEMAS[reader]!).filter((name) => !documented.has(name));
  expect(missing).toEqual([]);
});

test('every documented variable is read by a schema or by the file said to read it', () => {
  const unread = [...documented.keys()].filter((name) => readers(name).length === 0 && !READ_WITHOUT_SCHEMA[name]);
  expect(unread).toEqual([]);
  for (const [name, { file, reads }] of Object.entries(READ_WITHOUT_SCHEMA)) {
    expect([name, readText(file).includes(reads)]).toEqual([name, true]);
  }
});

test('"Used by" names exactly the schemas that read each variable', () => {
  const wrong = rows.flatMap((row) => {
    const said = row.usedBy.filter((reader) => reader in SCHEMAS).sort();
    const actual = [...new Set(row.names.flatMap(readers))].sort();
    return said.join() === actual.join() ? [] : [{ variables: row.names, said, actual }];
  });
  expect(wrong).toEqual([]);
});

test('documented defaults are the schemas’ defaults', () => {
  const wrong = rows.flatMap((row) =>
    row.names.flatMap((name, i) => {
      const doc = row.defaults[i];
      const reader = readers(name)[0];
      if (doc === undefined || reader === undefined) return [];
      const parsed = SCHEMAS[reader]![name]!.safeParse(undefined);
      if (!parsed.success || parsed.data === undefined) return [];
      return String(parsed.data) === doc ? [] : [{ name, documented: doc, schema: parsed.data }];
    }),
  );
  expect(wrong).toEqual([]);
});
