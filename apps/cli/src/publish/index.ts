export { publishFile } from './publish';
export { registerPublishCommand } from './command';
