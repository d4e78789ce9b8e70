// Loaded into every test file's process by run-tests.mjs: a file fails if, after all its tests
// and hooks, it still has a listening server or a child process (DESIGN: "each test file ...
// fails if it leaks a worker, server, child process or lease"). A leak would otherwise keep the
// file's process alive, or pass unnoticed where a later file happens to clean up.
import { after } from 'node:test';

const LEAKS = { TCPServerWrap: 'listening server', ProcessWrap: 'child process' };
const WAIT_MS = 5000;

function leaked() {
  return process.getActiveResourcesInfo().filter((r) => r in LEAKS).map((r) => LEAKS[r]);
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
      throw new Error(`leaked after all tests and hooks: ${found.join(', ')} (close every server, worker and child process the file starts)`);
    }
  }),
);
