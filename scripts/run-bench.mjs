#!/usr/bin/env node
// `npm run bench [-- NAME… --flag value…]`: runs bench/*.bench.ts one after another (never side by side:
// they measure wall time on a shared machine), each as `node --import tsx bench/X.bench.ts FLAGS`.
//   NAME   picks a bench: `poll` is bench/poll.bench.ts; a NAME that is no bench's full name picks every
//          bench whose name contains it (`scale` → poll-at-scale). No NAME: every bench.
//   FLAGS  everything starting with `-`, with the word after it as its value (`--tasks 200`,
//          `--seconds=3`), goes to every bench run; each bench reads the flags in its header comment and
//          ignores the others.
// Every bench runs even when one before it failed; the last lines say which failed, and the exit code.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const DIR = 'bench';
const SUFFIX = '.bench.ts';

const names = [];
const flags = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (!arg.startsWith('-')) names.push(arg);
  else {
    flags.push(arg);
    if (!arg.includes('=') && i + 1 < argv.length && !argv[i + 1].startsWith('-')) flags.push(argv[++i]);
  }
}

const all = readdirSync(DIR)
  .filter((f) => f.endsWith(SUFFIX))
  .map((f) => f.slice(0, -SUFFIX.length))
  .sort();
const pick = (name) => (all.includes(name) ? [name] : all.filter((b) => b.includes(name)));
const unmatched = names.filter((name) => pick(name).length === 0);
if (unmatched.length > 0 || all.length === 0) {
  console.error(`no bench matches ${unmatched.join(', ') || 'anything'}; benches: ${all.join(', ')}`);
  process.exit(2);
}
const chosen = names.length === 0 ? all : all.filter((b) => names.some((name) => pick(name).includes(b)));

const results = [];
for (const bench of chosen) {
  const file = join(DIR, bench + SUFFIX);
  console.log(`\n── ${bench} ── node --import tsx ${[file, ...flags].join(' ')}`);
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', file, ...flags], { stdio: 'inherit' });
  const seconds = (performance.now() - started) / 1000;
  const ok = run.status === 0;
  if (run.error) console.error(`${bench}: could not start: ${run.error.message}`);
  console.log(
    `── ${bench}: ${ok ? 'done' : `FAILED (${run.signal ?? `exit ${run.status}`})`} in ${seconds.toFixed(1)} s`,
  );
  results.push({ bench, ok });
}
const failed = results.filter((r) => !r.ok).map((r) => r.bench);
if (failed.length > 0) console.log(`\nbench FAILED: ${failed.join(', ')}`);
process.exit(failed.length > 0 ? 1 : 0);
