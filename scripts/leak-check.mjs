// Loaded into every test file's process by run-tests.mjs: a file fails if, after all its tests
// and hooks, it still has a listening server, a child process, a running task worker or webhook
// dispatcher, or if one it stopped left a task leased or a delivery claimed in its name
// (docs/architecture.md, "Tests"). A leak would
// otherwise keep the file's process alive, or pass unnoticed where a later file happens to clean up.
import { subscribe } from 'node:diagnostics_channel';
import { after } from 'node:test';
// Loaded after tsx (run-tests.mjs: --import tsx first), so the server's TypeScript resolves.
import { WORKER_LIFECYCLE_CHANNEL } from '../packages/server/src/domain/worker-lifecycle.ts';

const LEAKS = { TCPServerWrap: 'listening server', ProcessWrap: 'child process' };
const WAIT_MS = 5000;

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
    let found = leaked();
    // Closing is asynchronous: give handles that are on their way out a moment.
    while (found.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      found = leaked();
    }
    if (found.length > 0) {
      // The leak would keep this process alive and the whole run waiting: end it once the report is out.
      setTimeout(() => process.exit(1), 1000).unref();
      throw new Error(
        `leaked after all tests and hooks: ${found.join('; ')} (close every server, worker, dispatcher and child process the file starts)`,
      );
    }
  }),
);
