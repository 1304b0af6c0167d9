#!/usr/bin/env node
// `weft` as an installed command: run the TypeScript sources through tsx, with
// apps/cli's tsconfig wherever it is started from: its paths map @weft/sdk to
// the SDK's sources (the package itself points at its build, for publishing).
const path = require('node:path');

process.env.TSX_TSCONFIG_PATH ??= path.join(__dirname, '..', 'tsconfig.json');
require('tsx/cjs');
require('../src/main.ts');
