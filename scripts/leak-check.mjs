// Loaded into every test file's process by run-tests.mjs: a file fails if, after all its tests
// and hooks, it still has a listening server, a child process, a running task worker or webhook
// dispatcher, or if one it stopped left a task leased or a delivery claimed in its name
// (docs/architecture.md, "Tests"). A leak would
// otherwise keep the file's process alive, or pass unnoticed where a later file happens to clean up.
import { ChildProcess } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync, readdirSync } from 'node:fs';
import { after } from 'node:test';
// Loaded after tsx (run-tests.mjs: --import tsx first), so the server's TypeScript resolves.
import { WORKER_LIFECYCLE_CHANNEL } from '../packages/server/src/domain/worker-lifecycle.ts';

const LEAKS = { TCPServerWrap: 'listening server', ProcessWrap: 'child process' };
const WAIT_MS = 5000;
/** A backstop only: a child that ignores the signal it was sent would otherwise hold the run forever. */
const EXITING_MAX_MS = 10 * 60_000;

// A child this file asked to stop is on its way out, however long a busy machine makes its exit take:
// it is waited for, not reported. Signals are recorded by pid, and by process group for a negative pid.
const signalled = new Set();
const kill = process.kill.bind(process);
process.kill = (pid, signal) => {
  signalled.add(Number(pid));
  return kill(pid, signal);
};
const killChild = ChildProcess.prototype.kill;
ChildProcess.prototype.kill = function (signal) {
  if (this.pid !== undefined) signalled.add(this.pid);
  return killChild.call(this, signal);
};
function stopping(child) {
  return signalled.has(child.pid) || signalled.has(-child.pgid);
}

// Every in-process task worker and webhook dispatcher announces its start and stop (engine/worker-lifecycle.ts).
const LEASED = { 'task worker': 'lease of task', 'webhook dispatcher': 'claim of delivery' };
const running = new Map();
const leaseLeaks = [];
subscribe(WORKER_LIFECYCLE_CHANNEL, ({ event, kind, owner, heldLeases }) => {
  if (event === 'started') running.set(owner, kind);
  if (event !== 'stopped') return;
  running.delete(owner);
  if (heldLeases === undefined)
    leaseLeaks.push(`leases of stopped ${kind} ${owner} (its store could not be asked at stop)`);
  else if (heldLeases.length > 0)
    leaseLeaks.push(`${LEASED[kind]} ${heldLeases.join(', ')} held by stopped ${kind} ${owner}`);
});

function leaked() {
  const handles = process
    .getActiveResourcesInfo()
    .filter((r) => r in LEAKS)
    .map((r) => LEAKS[r]);
  return [...handles, ...[...running].map(([owner, kind]) => `running ${kind} ${owner}`), ...leaseLeaks];
}

// Registered once the test file's own top-level hooks are, so it runs after them.
setImmediate(() =>
  after(async () => {
    const deadline = Date.now() + WAIT_MS;
    const backstop = Date.now() + EXITING_MAX_MS;
    let found = leaked();
    // Closing is asynchronous: give handles that are on their way out a moment, and children that
    // were asked to stop the time their exit takes.
    while (found.length > 0 && (Date.now() < deadline || (exitingChildrenOnly(found) && Date.now() < backstop))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      found = leaked();
    }
    if (found.length > 0) {
      const alive = descendants(process.pid);
      const named = alive.length > 0 ? ` [still running: ${alive.map((p) => `${p.pid} ${p.command}`).join(', ')}]` : '';
      // The leak would keep this process alive and the whole run waiting: end it once the report is out.
      setTimeout(() => process.exit(1), 1000).unref();
      throw new Error(
        `leaked after all tests and hooks: ${found.join('; ')}${named} (close every server, worker, dispatcher and child process the file starts)`,
      );
    }
  }),
);

/** True when every leak is a child process, and each child still running was sent a signal. */
function exitingChildrenOnly(found) {
  if (found.some((leak) => leak !== LEAKS.ProcessWrap)) return false;
  return descendants(process.pid).every(stopping);
}

// The hook above runs only when the file's tests get to their end. A file that is cancelled, times
// out or exits early skips it, and a child it started (a `vidgen-server`) would keep running after
// it: so on every exit, whatever the path, any process still descending from this one is reported
// and killed, and the file fails.
function endDescendants() {
  const alive = descendants(process.pid);
  if (alive.length === 0) return;
  process.stderr.write(
    `leak check: child processes still running at exit, killed: ${alive.map((p) => `${p.pid} (${p.command})`).join('; ')}\n`,
  );
  for (const { pid } of alive) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  process.exitCode = 1;
}
process.once('exit', endDescendants);
// A signal (the runner cancelling the file, Ctrl-C) would end this process without 'exit' listeners.
for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
]) {
  process.once(signal, () => {
    endDescendants();
    process.exit(code);
  });
}

/** Live (not zombie) processes below `root`, from /proc (Linux; elsewhere none are seen). */
function descendants(root) {
  const children = new Map();
  let entries;
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  for (const name of entries) {
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
    const close = stat.lastIndexOf(')');
    const [state, ppid, pgid] = stat.slice(close + 2).split(' ');
    const command = stat.slice(stat.indexOf('(') + 1, close);
    // tsx's esbuild service lives as long as this process and ends with it (its stdin closes).
    if (state === 'Z' || command === 'esbuild') continue;
    const list = children.get(Number(ppid)) ?? [];
    list.push({ pid: Number(name), pgid: Number(pgid), command });
    children.set(Number(ppid), list);
  }
  const found = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()) ?? []) {
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}
