import fs from 'node:fs';
import path from 'node:path';
import { isInertNodeType, validateFlow } from '@weft/dag';
import { definitionOf, flowNodeIssues, paramsSchemaOf } from '@weft/nodes';
import { readCatalogFile } from './catalog-file';

// The example catalog must stay publishable: checked here without a server.
const CATALOG = path.resolve(__dirname, '..', '..', '..', '..', 'catalog');
const files = fs.readdirSync(CATALOG).filter((f) => f.endsWith('.json'));

/** Types a deployment runs without a provider account: built in, or with a local route. */
const runsOffline = (type: string) =>
  isInertNodeType(type) || definitionOf(type).serving === 'built_in' || definitionOf(type).localRoute !== undefined;

it('has examples', () => {
  expect(files.length).toBeGreaterThanOrEqual(3);
});

it.each(files)('%s is a valid catalog file whose flow runs offline', (name) => {
  const def = readCatalogFile(path.join(CATALOG, name));
  expect([...validateFlow(def.flow), ...flowNodeIssues(def.flow)]).toEqual([]);
  for (const node of def.flow.nodes) {
    if (isInertNodeType(node.type)) continue;
    expect(paramsSchemaOf(node.type).safeParse(node.params ?? {}).error?.issues).toBeUndefined();
    expect({ node: node.id, runsOffline: runsOffline(node.type) }).toEqual({ node: node.id, runsOffline: true });
  }
});
