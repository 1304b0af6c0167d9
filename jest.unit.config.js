// `npm run test:unit`: the suites that need no PostgreSQL, Redis or S3, without
// the globalSetup that finds or starts them. Integration suites are *.int.test.ts.
const { globalSetup: _services, globalTeardown: _servicesTeardown, ...base } = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testPathIgnorePatterns: [...base.testPathIgnorePatterns, '\\.int\\.test\\.ts$'],
  globalSetup: '<rootDir>/packages/testing/src/unit-global-setup.ts',
};
