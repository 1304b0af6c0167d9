import fs from 'node:fs';
import path from 'node:path';
import { nodeReference } from './node-reference';

test('docs/nodes.md is what the definitions say (run `npm run docs:nodes` after changing one)', () => {
  const file = path.resolve(__dirname, '..', '..', '..', '..', 'docs', 'nodes.md');
  expect(fs.readFileSync(file, 'utf8')).toBe(nodeReference());
});
