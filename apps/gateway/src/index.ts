// The gateway runs as a process of its own (main.ts). What other workspaces
// take from it is a way to start one in their tests.
export { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from './testing/test-gateway';
