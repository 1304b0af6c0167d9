// `npm run test:integration`: the *.int.test.ts suites, against the services
// that jest.config.js's globalSetup finds or starts.
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = { ...base, testMatch: ['**/*.int.test.ts'] };
