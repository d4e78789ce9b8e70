import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8 judges "allocating slowly" over its last 5 s of allocation; a little more, to be past it. */
const IDLE_WINDOW_MS = 6000;

/**
 * Start-up (module loading, route schema compilation, migrations) allocates fast enough that V8
 * grows the young generation to its maximum (about 30 MB), and an idle server never collects again
 * to shrink it (docs/performance.md). V8 shrinks it in a full collection only when the allocation
 * rate since the previous one is low, so: one collection once the server is up, which ends the
 * start-up sample, and one after a quiet window, which then finds a low rate and gives the
 * memory back. A server that is busy by then keeps its young generation, and under load V8 grows it
 * again as it needs, so throughput is untouched (unlike capping it with --max-semi-space-size).
 */
export function releaseStartupMemory(): void {
  const gc = collector();
  gc();
  setTimeout(gc, IDLE_WINDOW_MS).unref();
}

/** `gc` without `--expose-gc` on the command line: a context made while the flag is set has it. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // Contexts made later (vm users) keep Node's default.
  setFlagsFromString('--no-expose-gc');
  return gc;
}
