import { readFileSync } from 'node:fs';

// Linux's USER_HZ: the unit of /proc/<pid>/stat times; 100 on every mainstream kernel build.
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) used so far by this process and by its children that have exited and
 * been reaped (ffmpeg, once its 'close' fired). A render's cost is the difference of two readings:
 * wall time on a shared 2-core box measures the neighbours; CPU time measures the work.
 * This process's own share comes from process.cpuUsage() (microseconds); the children's from
 * /proc/self/stat's cutime and cstime, the only place Node can read them (Linux only).
 */
export function cpuSeconds(): number {
  const own = process.cpuUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const children = Number(fields[16 - 3]) + Number(fields[17 - 3]);
  return (own.user + own.system) / 1e6 + children / TICKS_PER_SECOND;
}

/** The CPU seconds `fn` costs this process and the children it waits for. */
export async function cpuOf(fn: () => Promise<unknown>): Promise<number> {
  const before = cpuSeconds();
  await fn();
  return cpuSeconds() - before;
}
