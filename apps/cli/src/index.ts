// The settings `npm run dev` reads, for the check of docs/configuration.md.
export { DevEnv } from './dev/dev-config';
