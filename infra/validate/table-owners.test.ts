import { foldersNaming, namesTable, ownerRows, productionSources, schemaTables } from './table-owners';
import { readText } from './files';

const tables = schemaTables(readText('prisma/schema.prisma'));
const owners = ownerRows(readText('ARCHITECTURE.md'));

test('every table of the schema has exactly one owner listed', () => {
  expect(tables.length).toBeGreaterThan(10);
  expect(owners.map((o) => o.table).sort()).toEqual(tables.map((t) => t.table).sort());
});

test('only its owner folder, and the folders listed beside it, name a table', () => {
  const found = foldersNaming(tables, owners, productionSources());
  const listed = Object.fromEntries(owners.map((o) => [o.table, [o.owner, ...o.alsoNamedBy].sort()]));
  const actual = Object.fromEntries([...found].map(([table, folders]) => [table, [...folders].sort()]));
  // A folder listed beside a table that no longer names it is removed from the list, too.
  for (const [table, folders] of Object.entries(actual)) {
    if (folders.length === 0) folders.push(owners.find((o) => o.table === table)!.owner);
  }
  expect(actual).toEqual(listed);
});

test('a query is recognised through Prisma and in SQL, not in prose', () => {
  const assets = { model: 'Asset', table: 'assets' };
  expect(namesTable('await db.prisma.asset.findFirst({ where })', assets)).toBe(true);
  expect(namesTable('await tx.asset\n  .updateMany({})', assets)).toBe(true);
  expect(namesTable('`UPDATE assets a SET asset_type = $1`', assets)).toBe(true);
  expect(namesTable('`SELECT id FROM "assets" WHERE`', assets)).toBe(true);
  expect(namesTable("pageOfRows(pool, { select, from: 'assets s', alias: 's' })", assets)).toBe(true);
  expect(namesTable('`DELETE FROM assets_archive`', assets)).toBe(false);
  expect(namesTable("description: 'unique among uploads (separate from assets)'", assets)).toBe(false);
  expect(namesTable('const assets = row.assets;', assets)).toBe(false);
});
