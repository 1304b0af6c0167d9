// The gateway runs as a process of its own (main.ts). What other workspaces
// take from it: a way to start one (or one with workers) in their tests, and
// the OpenAPI document its routes generate (the SDK's types are generated from it).
export { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from './testing/test-gateway';
export { startRunStack, type RunStack } from './testing/test-runs';
export { openApiDocument } from './openapi/openapi-document';
// The settings it reads, for the check of docs/configuration.md.
export { GatewayEnv } from './config';
export { pngBytes } from './testing/asset-fixtures';
export { solid } from './testing/media/generate';
export { clientFlows, clientNodeRoutes } from './testing/client-flows';
