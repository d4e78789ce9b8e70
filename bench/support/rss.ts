import { readFileSync } from 'node:fs';

/** VmRSS of a process, in bytes (Linux). */
export function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  if (!line) throw new Error(`no VmRSS for ${pid}`);
  return Number(line.split(/\s+/)[1]) * 1024;
}
