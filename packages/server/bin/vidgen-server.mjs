#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx: no build step between a checkout and a running service.
import { register } from 'tsx/esm/api';

register();
const { runServerCli } = await import('../src/cli/server-cli.ts');
try {
  await runServerCli(process.argv.slice(2), process.env);
} catch (err) {
  process.stderr.write(`vidgen-server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
