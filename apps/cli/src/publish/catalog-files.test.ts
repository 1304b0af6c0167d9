import fs from 'node:fs';
import path from 'node:path';
import { validateFlow } from '@weft/dag';
import { readCatalogFile } from './catalog-file';

// The example catalog must stay publishable: checked here without a server.
const CATALOG = path.resolve(__dirname, '..', '..', '..', '..', 'catalog');
const files = fs.readdirSync(CATALOG).filter((f) => f.endsWith('.json'));

// extensions.md 5: the node types every deployment runs without a provider account.
const OFFLINE_TYPES = new Set([
  'text_input',
  'image_input',
  'video_input',
  'audio_input',
  'file_input',
  'prompt_concatenate',
  'text_split',
  'list_selector',
  'human_review',
  'change_aspect_ratio',
  'comment',
  'group',
]);

it('has examples', () => {
  expect(files.length).toBeGreaterThanOrEqual(3);
});

it.each(files)('%s is a valid catalog file whose flow runs offline', (name) => {
  const def = readCatalogFile(path.join(CATALOG, name));
  expect(validateFlow(def.flow)).toEqual([]);
  for (const node of def.flow.nodes) expect(OFFLINE_TYPES).toContain(node.type);
});
