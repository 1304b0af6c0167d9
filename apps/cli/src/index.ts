// The settings `npm run dev` reads, for the check of docs/configuration.md.
export { DevEnv } from './dev/dev-config';
// Publishing a catalog file, for the clients' tests that need agents of the example catalog.
export { publishFile } from './publish/publish';
