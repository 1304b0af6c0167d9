import fs from 'node:fs';
import path from 'node:path';
import { isInertNodeType, validateFlow } from '@weft/dag';
import { definitionOf, flowNodeIssues, paramsSchemaOf } from '@weft/nodes';
import { createNodeRoutes } from '@weft/providers';
import { readCatalogFile } from './catalog-file';

// The example catalog must stay publishable: checked here without a server.
const CATALOG = path.resolve(__dirname, '..', '..', '..', '..', 'catalog');
const files = fs.readdirSync(CATALOG).filter((f) => f.endsWith('.json'));

/** Types a deployment runs without a provider account: built in, or with a local route. */
const runsOffline = (type: string) =>
  isInertNodeType(type) || definitionOf(type).serving === 'built_in' || definitionOf(type).localRoute !== undefined;

/**
 * A deployment whose only provider setting is OPENAI_API_KEY: the examples
 * that use a provider say that this one variable runs them (catalog/README.md).
 */
const openAIOnly = createNodeRoutes({ OPENAI_API_KEY: 'sk-catalog-check' });

/** Where a node goes in that deployment: `local` (the worker itself), a provider, or what is missing. */
async function whereRuns(node: { type: string; params?: Record<string, unknown> }): Promise<string> {
  if (isInertNodeType(node.type) || definitionOf(node.type).serving === 'built_in') return 'local';
  const route = await openAIOnly.routeFor(definitionOf(node.type).type, node.params ?? {}, 'catalog-check');
  if ('local' in route) return 'local';
  return 'missing' in route ? `missing: ${route.missing}` : route.provider;
}

it('has examples', () => {
  expect(files.length).toBeGreaterThanOrEqual(3);
});

it.each(files)('%s is a valid catalog file whose flow runs offline, or with OPENAI_API_KEY alone', async (name) => {
  const def = readCatalogFile(path.join(CATALOG, name));
  expect([...validateFlow(def.flow), ...flowNodeIssues(def.flow)]).toEqual([]);
  const usesOpenAI = def.tags?.includes('openai') ?? false;
  for (const node of def.flow.nodes) {
    if (isInertNodeType(node.type)) continue;
    expect(paramsSchemaOf(node.type).safeParse(node.params ?? {}).error?.issues).toBeUndefined();
    // An example tagged `openai` may reach OpenAI; every other one runs on a fresh `npm run dev`.
    if (usesOpenAI) {
      expect({ node: node.id, runs: await whereRuns(node) }).toEqual({
        node: node.id,
        runs: expect.stringMatching(/^(local|openai)$/),
      });
    } else {
      expect({ node: node.id, runsOffline: runsOffline(node.type) }).toEqual({ node: node.id, runsOffline: true });
    }
  }
});

it('the examples that reach OpenAI say so in their tags and their description', () => {
  const reaching = files.filter((name) =>
    readCatalogFile(path.join(CATALOG, name)).flow.nodes.some((node) => !runsOffline(node.type)),
  );
  expect(reaching.length).toBeGreaterThanOrEqual(2);
  for (const name of reaching) {
    const def = readCatalogFile(path.join(CATALOG, name));
    expect({ name, tags: def.tags }).toEqual({ name, tags: expect.arrayContaining(['openai']) });
    expect(def.description).toContain('OPENAI_API_KEY');
  }
});
