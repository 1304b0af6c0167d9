import { getEventListeners } from 'node:events';
import { runCli } from './cli';

// Entry point of `weft` (npm run weft -- ..., or the bin shim): the only place that touches process.
// runCli reports every error itself and resolves to the exit code: it never rejects.

// Ctrl-C: a command following a run stops following (the run goes on) and says so;
// any other command, or a second Ctrl-C, ends the process at once.
const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted || getEventListeners(interrupt.signal, 'abort').length === 0) process.exit(130);
  interrupt.abort();
});

const terminal =
  process.stdin.isTTY && process.stderr.isTTY ? { input: process.stdin, output: process.stderr } : undefined;

void runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  ...(terminal ? { terminal } : {}),
  signal: interrupt.signal,
}).then((code) => {
  process.exitCode = code;
  // A prompt may leave the terminal's input open, which would keep the process alive.
  if (terminal) process.stdin.pause();
});
