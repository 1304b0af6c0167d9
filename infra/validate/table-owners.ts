import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './files';

// Every table has one owner folder, the only code whose SQL names it
// (ARCHITECTURE.md#tables-and-their-owners). A table still named elsewhere is
// listed there with the folders that do, so the list can only shrink.

export interface TableModel {
  model: string;
  table: string;
}

/** The models of prisma/schema.prisma and the tables they map to. */
export function schemaTables(schema: string): TableModel[] {
  return [...schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)].map((m) => ({
    model: m[1]!,
    table: /@@map\("(\w+)"\)/.exec(m[2]!)?.[1] ?? m[1]!,
  }));
}

const PRISMA_CALLS =
  'findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany|count|aggregate|groupBy';

/** Whether `source` queries `t`: a Prisma delegate call, or SQL naming the table after a keyword. */
export function namesTable(source: string, t: TableModel): boolean {
  const delegate = t.model[0]!.toLowerCase() + t.model.slice(1);
  if (new RegExp(`\\.${delegate}\\s*\\.\\s*(${PRISMA_CALLS})\\b`).test(source)) return true;
  // Our SQL writes its keywords in capitals; prose ("from runs") does not count. A
  // page statement (@weft/db's pageOfRows) names its table in `from: 'runs r'`.
  if (new RegExp(`\\bfrom:\\s*['"\`]${t.table}\\b`).test(source)) return true;
  return new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|TABLE)\\s+"?${t.table}"?(?![\\w"])`).test(source);
}

export interface OwnerRow {
  table: string;
  owner: string;
  /** Folders that name the table too, for now. */
  alsoNamedBy: string[];
}

/** The table of ARCHITECTURE.md's "Tables and their owners" section. */
export function ownerRows(architecture: string): OwnerRow[] {
  const section = /^## Tables and their owners\n([\s\S]*?)(?=^## )/m.exec(architecture)?.[1];
  if (!section) throw new Error('ARCHITECTURE.md has no "## Tables and their owners" section');
  const rows: OwnerRow[] = [];
  for (const line of section.split('\n')) {
    const cells = /^\|(.*)\|\s*$/
      .exec(line)?.[1]
      ?.split('|')
      .map((c) => c.trim());
    if (!cells || cells.length < 3 || !cells[0]!.startsWith('`')) continue;
    const code = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rows.push({ table: code(cells[0]!)[0]!, owner: code(cells[1]!)[0]!, alsoNamedBy: code(cells[2]!) });
  }
  return rows;
}

/**
 * Source files whose queries count: the apps' and packages' code. Tests, test
 * helpers and benchmarks seed and inspect rows directly, as an operator would.
 */
export function productionSources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'generated', 'testing', 'dist'].includes(entry.name)) walk(rel);
      } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts')) {
        files.push(rel);
      }
    }
  };
  walk('apps');
  walk('packages');
  return files;
}

/** For each table, the folders (owner folders as listed, else the file) whose code names it. */
export function foldersNaming(tables: TableModel[], owners: OwnerRow[], files: string[]): Map<string, Set<string>> {
  const known = [...new Set(owners.flatMap((o) => [o.owner, ...o.alsoNamedBy]))].sort((a, b) => b.length - a.length);
  const found = new Map<string, Set<string>>(tables.map((t) => [t.table, new Set<string>()]));
  for (const file of files) {
    const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const t of tables) {
      if (!namesTable(source, t)) continue;
      const folder = known.find((f) => file === f || file.startsWith(`${f}/`)) ?? file;
      found.get(t.table)!.add(folder);
    }
  }
  return found;
}
