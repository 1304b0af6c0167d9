#!/usr/bin/env node
// `weft` as an installed command: run the TypeScript sources through tsx.
require('tsx/cjs');
require('../src/main.ts');
