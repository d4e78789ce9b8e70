#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx: no build step between a checkout and a working CLI.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
const controller = new AbortController();
// First Ctrl-C stops waiting cleanly (the task goes on on the server); a second one exits at once.
process.once('SIGINT', () => {
  controller.abort();
  process.once('SIGINT', () => process.exit(130));
});
process.exitCode = await runCli(process.argv.slice(2), process.env, { stdout: process.stdout, stderr: process.stderr }, controller.signal);
