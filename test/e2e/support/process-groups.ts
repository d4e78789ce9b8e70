import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

// Children of a test file run in their own process groups, so that one signal ends a child and
// everything it started (a server's ffmpeg renders, `script`'s shell). Whatever way this process
// ends (its tests finish, a hook throws, the runner cancels it, the leak check exits it), the groups
// still alive are killed on the way out: a cancelled file must not leave a server listening.
const groups = new Set<number>();

/** Kills every process group started by spawnInGroup that may still be running. */
export function killGroups(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const pgid of groups) killGroup(pgid, signal);
}

/** Kills one group; a group that is already gone is not an error. */
export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    groups.delete(pgid);
  }
}

process.once('exit', () => killGroups());
// A signal would end this process without running 'exit' listeners: exit instead, so they run.
for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
] as const) {
  process.once(signal, () => process.exit(code));
}

/**
 * `spawn`, with the child leading a new process group that is killed whole when the child exits
 * (nothing it started outlives it) and when this process exits.
 */
export function spawnInGroup(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  const pgid = child.pid;
  if (pgid === undefined) return child;
  groups.add(pgid);
  child.once('exit', () => {
    killGroup(pgid);
    groups.delete(pgid);
  });
  return child;
}
