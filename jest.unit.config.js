// `npm run test:unit`: the suites that need no PostgreSQL, Redis or S3 and run
// no external program (ffmpeg, potrace, a fresh Node process), without the
// globalSetup that finds or starts the services. Those are *.int.test.ts.
const { globalSetup: _services, globalTeardown: _servicesTeardown, ...base } = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testPathIgnorePatterns: [...base.testPathIgnorePatterns, '\\.int\\.test\\.ts$'],
};
