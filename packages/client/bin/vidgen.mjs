#!/usr/bin/env node
// Runs the built CLI (plain JavaScript): no TypeScript loader at run time. In this repository
// `npm install` builds it (the root package's `prepare` script).
import { runCli } from '../dist/cli/main.js';

const controller = new AbortController();
// First Ctrl-C stops waiting cleanly (the task goes on on the server); a second one exits at once.
process.once('SIGINT', () => {
  controller.abort();
  process.once('SIGINT', () => process.exit(130));
});
const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
process.exitCode = await runCli(process.argv.slice(2), process.env, io, controller.signal);
