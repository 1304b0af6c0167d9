import fs from 'node:fs';
import path from 'node:path';
import { nodeReference } from './node-reference';

// npm run docs:nodes
const target = path.resolve(__dirname, '..', '..', '..', '..', 'docs', 'nodes.md');
fs.writeFileSync(target, nodeReference());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
