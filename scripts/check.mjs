#!/usr/bin/env node
// `npm run check`: the code-health checks CI runs before the tests (docs/code-health.md says why these
// tools and settings). They run side by side, since on two cores the typecheck alone takes most of the
// time; each one's output is printed whole under its own header, and the last lines name every check
// that failed. `npm run check -- lint circular` runs only the named checks.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const bin = (name) => join('node_modules', '.bin', name);
const CHECKS = {
  // Incremental: a second run on the same checkout re-checks only what changed (12 s → 4 s of CPU).
  typecheck: [
    bin('tsc'),
    '-p',
    'tsconfig.json',
    '--incremental',
    '--tsBuildInfoFile',
    join('node_modules', '.cache', 'vidgen', 'tsc.tsbuildinfo'),
  ],
  // Warnings fail too, so nothing piles up as ignored noise; info-level hints are left to editors.
  lint: [bin('biome'), 'lint', '--error-on-warnings', '--diagnostic-level=warn', '.'],
  // One format (biome.jsonc); `npx biome format --write .` applies it.
  format: [bin('biome'), 'format', '.'],
  // The server's folders are layers; an import that points up fails (docs/architecture.md, "Layers").
  layers: [process.execPath, join('scripts', 'check-layers.mjs')],
  // Type-only imports count: a circle of types still ties modules together, and it turns into a
  // runtime circle the day one `import type` becomes a value import.
  circular: [
    bin('dpdm'),
    '--no-tree',
    '--no-warning',
    '--no-progress',
    '--exit-code',
    'circular:1',
    'packages/*/src/**/*.ts',
  ],
  // Source lines stay within 120 characters, strings and comments too (the formatter breaks neither).
  lines: [process.execPath, join('scripts', 'check-line-length.mjs')],
  // The committed OpenAPI document (the drift test keeps it equal to what the routes serve) against
  // Redocly's strict preset, with the probes' exception as a rule in redocly.yaml (no ignore file).
  openapi: [bin('redocly'), 'lint', 'docs/openapi.json'],
};
// Redocly reports usage and looks for updates over the network unless told not to; CI has no internet.
// Its colour library reads any FORCE_COLOR, even 0, as "on": NO_COLOR keeps the log plain.
const QUIET = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
// On Node 20 Redocly boxes a notice of Node 20's end of life above every run. No variable or flag turns
// it off: @redocly/cli's lib/index.js prints it whenever the Node major is 20, before it reads its
// arguments. The project supports Node 20 (engines) and the notice says nothing about the document, so
// its box is cut from the check's output; any other box Redocly draws is left as it is.
const NODE_20_NOTICE = /^[ \t]*╔═*╗\n(?:[ \t]*║.*║\n)*[ \t]*╚═*╝\n\n?/gm;
const dropNode20Notice = (output) =>
  output.replace(NODE_20_NOTICE, (box) => (box.includes('Node.js 20 support is ending') ? '' : box));
const OUTPUT_FILTERS = { openapi: dropNode20Notice };
const TIMEOUT_MS = 5 * 60_000;

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in CHECKS));
if (unknown.length > 0) {
  console.error(`unknown check(s): ${unknown.join(', ')}; known: ${Object.keys(CHECKS).join(', ')}`);
  process.exit(2);
}
const names = wanted.length > 0 ? wanted : Object.keys(CHECKS);

function run(name) {
  const [command, ...args] = CHECKS[name];
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...QUIET, FORCE_COLOR: '0' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n${name}: no answer after ${TIMEOUT_MS / 1000} s, stopped\n`;
      child.kill('SIGKILL');
    }, TIMEOUT_MS);
    const done = (code, error) => {
      clearTimeout(timer);
      if (error) output += `\n${name}: could not start ${command}: ${error.message} (did \`npm install\` run?)\n`;
      const shown = (OUTPUT_FILTERS[name] ?? String)(output);
      resolve({ name, ok: code === 0, output: shown, seconds: (performance.now() - started) / 1000 });
    };
    child.on('error', (error) => done(null, error));
    child.on('close', (code) => done(code));
  });
}

const started = performance.now();
const results = await Promise.all(names.map(run));
for (const r of results) {
  console.log(`\n── ${r.name}: ${r.ok ? 'ok' : 'FAILED'} (${r.seconds.toFixed(1)} s) ── ${CHECKS[r.name].join(' ')}`);
  const text = r.output.trimEnd();
  if (text) console.log(text);
}
const failed = results.filter((r) => !r.ok).map((r) => r.name);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (failed.length === 0) console.log(`\ncheck ok: ${names.join(', ')} (${seconds} s)`);
else console.log(`\ncheck FAILED: ${failed.join(', ')} (${failed.length} of ${results.length} checks, ${seconds} s)`);
process.exit(failed.length > 0 ? 1 : 0);
