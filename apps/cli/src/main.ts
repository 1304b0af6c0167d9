import { runCli } from './cli';

// Entry point of `weft` (npm run weft -- ..., or the bin shim): the only place that touches process.
// runCli reports every error itself and resolves to the exit code: it never rejects.
void runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then((code) => {
  process.exitCode = code;
});
