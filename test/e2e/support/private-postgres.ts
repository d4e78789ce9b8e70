import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, type CommandResult } from './process.ts';

/**
 * A PostgreSQL cluster of one test file's own, which it may stop and restart at will: the
 * machine's shared cluster serves every other test (and other people), so a restart test never
 * touches it. The cluster lives in a temporary directory (data, log, socket) on a free loopback
 * port with trust authentication, and is gone, files and all, after `destroy()`.
 */
export interface PrivateCluster {
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  /** `pg_ctl restart -m fast`: every connection is cut, the server is back when this resolves. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`: connections are cut and new ones refused until `start()`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server (immediately) and removes its directory; safe to call more than once. */
  destroy(): Promise<void>;
}

/**
 * Creates and starts a private cluster, or returns why it cannot (no PostgreSQL binaries, no
 * `postgres` user to run them as root): the caller skips with that reason. Under CI=true it
 * throws instead, since CI provides PostgreSQL and a skip there would hide a broken test.
 */
export async function createPrivateCluster(): Promise<PrivateCluster | string> {
  const bin = findBinaries();
  if (!bin)
    return unavailable(
      'no PostgreSQL server binaries (initdb, pg_ctl) found; set VIDGEN_TEST_PG_BIN to their directory',
    );
  const asRoot = process.getuid?.() === 0;
  // PostgreSQL refuses to run as root: as root, everything runs as the `postgres` user.
  const owner = asRoot ? userIds('postgres') : undefined;
  if (asRoot && !owner) return unavailable('running as root and there is no `postgres` user to run PostgreSQL as');
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-pgc-'));
  if (owner) await chown(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const run = (tool: string, args: string[]): Promise<CommandResult> =>
    asRoot
      ? runCommand('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args])
      : runCommand(join(bin, tool), args);
  const pgCtl = async (...args: string[]) => {
    const done = await run('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', ...args]);
    if (done.code !== 0)
      throw new Error(
        `pg_ctl ${args.join(' ')} failed (${done.code}): ${done.stderr || done.stdout}\n${await readFile(log, 'utf8').catch(() => '')}`,
      );
  };
  let port = 0;
  let destroyed = false;
  // A crash of the test process must not leave a server running: stop it synchronously on exit.
  const onExit = () => {
    const args = ['-D', data, '-m', 'immediate', 'stop'];
    spawnSync(
      asRoot ? 'runuser' : join(bin, 'pg_ctl'),
      asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args] : args,
      { stdio: 'ignore' },
    );
  };
  const destroy = async () => {
    if (destroyed) return;
    destroyed = true;
    process.off('exit', onExit);
    if (existsSync(join(data, 'postmaster.pid'))) await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const init = await run('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ]);
    if (init.code !== 0) throw new Error(`initdb failed (${init.code}): ${(init.stderr || init.stdout).trim()}`);
    process.on('exit', onExit);
    // Another process may take the free port between the probe and the start: try a few.
    for (let tries = 1; ; tries++) {
      port = await freePort();
      // In the configuration file, not on the command line, so that `pg_ctl start` after a stop
      // brings the same server back. The socket stays in the test's directory (as `-k` would put it), and
      // durability is not what these tests are about: fsync off spares the shared disks.
      await appendFile(
        join(data, 'postgresql.conf'),
        [
          `port = ${port}`,
          "listen_addresses = '127.0.0.1'",
          `unix_socket_directories = '${dir}'`,
          'fsync = off',
          'synchronous_commit = off',
          'full_page_writes = off',
          'max_connections = 100',
          'shared_buffers = 32MB',
          '',
        ].join('\n'),
      );
      try {
        await pgCtl('start');
        break;
      } catch (err) {
        if (tries >= 3) throw err;
      }
    }
  } catch (err) {
    await destroy();
    return unavailable(`could not create a private PostgreSQL cluster: ${(err as Error).message}`);
  }
  return {
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    restart: () => pgCtl('-m', 'fast', 'restart'),
    stop: () => pgCtl('-m', 'fast', 'stop'),
    start: () => pgCtl('start'),
    destroy,
  };
}

function unavailable(reason: string): string {
  if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: a missing service is a failure)`);
  return reason;
}

/** VIDGEN_TEST_PG_BIN, else the newest Debian-style /usr/lib/postgresql/<n>/bin, else the PATH. */
function findBinaries(): string | undefined {
  const candidates: string[] = [];
  if (process.env.VIDGEN_TEST_PG_BIN) candidates.push(process.env.VIDGEN_TEST_PG_BIN);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join(debian, v, 'bin')));
  }
  candidates.push(...(process.env.PATH ?? '').split(':').filter(Boolean));
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
}

function userIds(name: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
