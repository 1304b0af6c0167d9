import fs from 'node:fs';
import path from 'node:path';
import { OPENAPI_TYPES_FILE, renderOpenApiTypes } from './openapi-types';

// npm run sdk:generate: rewrites src/generated/openapi.ts from the gateway's routes.
// With --check it writes nothing and exits 1 when the file (or the one --file names) differs.
const check = process.argv.includes('--check');
const fileArg = process.argv.indexOf('--file');
const file = fileArg > 0 && process.argv[fileArg + 1] ? path.resolve(process.argv[fileArg + 1]!) : OPENAPI_TYPES_FILE;
const target = path.relative(process.cwd(), file);

void renderOpenApiTypes().then((text) => {
  if (!check) {
    fs.writeFileSync(file, text);
    console.log(`wrote ${target}`);
  } else if (fs.readFileSync(file, 'utf8') !== text) {
    console.error(`${target} is stale: the gateway's routes changed. Run \`npm run sdk:generate\` and commit it.`);
    process.exitCode = 1;
  } else {
    console.log(`${target} is up to date`);
  }
});
