/**
 * Idle task streams: what --watchers open `GET /v1/video/generations/{id}/events` streams, one per
 * queued task, add to one API process (`vidgen-server --role api`, its build under plain node, no
 * worker, so every task stays queued and every stream idle), on SQLite and on PostgreSQL. In the same
 * run, before and after they open (--rounds of both, the median of the differences), once the
 * process has settled each time (--settle-ms: past V8's 5 s allocation window, the pool's 10 s idle
 * time-out and PostgreSQL's 10 s delay in counting an idle backend's transactions):
 *  - its resident set (VmRSS) after a full garbage collection (the server runs with `--inspect`, and
 *    the bench asks for one: otherwise the collector's state alone moves RSS by tens of MB), aim: ≤ 50 MB
 *    more with 1,000 watchers; the median and the largest of the rounds' differences;
 *  - on PostgreSQL, the connections of its database in pg_stat_activity, aim: none per watcher
 *    (they share the process's wake-ups; the pool keeps one connection for the shared recheck);
 *  - on PostgreSQL, transactions per second while they idle for --window-ms (pg_stat_database
 *    xact_commit): the batched recheck, two queries of 500 ids per 10 s, against the same window
 *    with no watcher.
 * Then --check of the tasks are canceled and their streams must each bring the final state: the
 * watchers were alive. Prints the load average beside each line.
 *
 *   node --import tsx bench/sse-watchers.bench.ts [--watchers 1000] [--rounds 3] [--settle-ms 12000]
 *     [--window-ms 20000] [--check 20] [--full: 5 rounds]
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import http from 'node:http';
import { join } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { spawnServer, runServerCommand } from '../test/e2e/support/process.ts';
import { createPostgresDatabase } from '../packages/server/test/support/databases.ts';
import { FULL, load, median, numberArg } from './support/paired.ts';
import { rssOf } from './support/rss.ts';

const WATCHERS = numberArg('watchers', 1000);
const SETTLE_MS = numberArg('settle-ms', 12_000);
const WINDOW_MS = numberArg('window-ms', 20_000);
const CHECK = numberArg('check', 20);
const ROUNDS = numberArg('rounds', FULL ? 5 : 3);
const MB = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const settle = () => sleep(SETTLE_MS);

/**
 * A full garbage collection in the server, through its inspector (it runs with `--inspect` here):
 * without it, RSS moves by tens of MB with the collector's state alone (a grown young generation,
 * garbage not yet collected), more than 1,000 watchers hold.
 */
async function collectGarbage(inspectorUrl: string): Promise<void> {
  const socket = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  for (let id = 1; id <= 2; id++) {
    const answered = new Promise((resolve) => socket.once('message', resolve));
    socket.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
    await answered;
  }
  socket.close();
}

/** The server's RSS once settled and collected. */
async function rssSettled(pid: number, inspectorUrl: string): Promise<number> {
  await settle();
  await collectGarbage(inspectorUrl);
  await sleep(1000);
  return rssOf(pid);
}

/** One open stream, read by node:http (a connection of its own, ended with it, unlike an aborted fetch's). */
interface Watcher {
  text: string;
  /** Resolves once the text so far satisfies `done`. */
  until(done: (text: string) => boolean): Promise<void>;
  close(): void;
}

/** Opens a stream and reads until its first event (the queued state) has arrived. */
async function openWatcher(url: string, key: string): Promise<Watcher> {
  const watcher = await new Promise<Watcher>((resolve, reject) => {
    const waiting = new Set<() => void>();
    const headers = { authorization: `Bearer ${key}`, accept: 'text/event-stream' };
    const request = http.get(url, { headers }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      const w: Watcher = {
        text: '',
        until: (done) =>
          new Promise<void>((ok, fail) => {
            const check = () => {
              if (!done(w.text)) return;
              waiting.delete(check);
              ok();
            };
            waiting.add(check);
            res.once('close', () => fail(new Error(`the stream ended: ${w.text}`)));
            check();
          }),
        close: () => request.destroy(),
      };
      res.on('data', (chunk: string) => {
        w.text += chunk;
        for (const check of [...waiting]) check();
      });
      resolve(w);
    });
    request.on('error', reject);
  });
  await watcher.until((text) => text.includes('data: '));
  return watcher;
}

/** Opens a stream for each task, 50 at a time. */
async function openAll(base: string, ids: string[], key: string): Promise<Watcher[]> {
  const watchers: Watcher[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    const batch = ids.slice(i, i + 50);
    watchers.push(
      ...(await Promise.all(batch.map((id) => openWatcher(`${base}/v1/video/generations/${id}/events`, key)))),
    );
  }
  return watchers;
}

interface Database {
  name: 'SQLite' | 'PostgreSQL';
  url?: string;
  /** Connections of the server's database, and transactions committed in it so far (PostgreSQL). */
  stats?(): Promise<{ connections: number; commits: number }>;
}

async function run(database: Database): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-sse-'));
  const env: Record<string, string> = {
    VIDGEN_DATA_DIR: dataDir,
    VIDGEN_MAX_STREAMS_PER_ACCOUNT: String(WATCHERS),
    ...(database.url ? { VIDGEN_DATABASE_URL: database.url } : {}),
  };
  const key = (await runServerCommand(['keys', 'create', '--account', 'watchers'], env)).stdout.trim();
  const server = await spawnServer({ ...env, NODE_OPTIONS: '--inspect=127.0.0.1:0' }, ['--role', 'api'], {
    keepLines: false,
  });
  const inspectorUrl = /ws:\/\/[^\s]+/.exec(server.lines.join(''))?.[0];
  if (!inspectorUrl) throw new Error(`no inspector address in ${server.lines.join('')}`);
  const watchers: Watcher[] = [];
  try {
    const ids: string[] = [];
    for (let i = 0; i < WATCHERS; i++) {
      const res = await fetch(`${server.url}/v1/video/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'video-v1-5s', prompt: `idle watcher ${i}` }),
      });
      ids.push(((await res.json()) as { task_id: string }).task_id);
    }
    // A first round of as many streams, opened and closed: the memory a burst of stream requests
    // leaves (a grown young generation, the route's compiled serializer) is in every measurement,
    // so a difference is what open watchers hold. Rounds, since a garbage collection moves RSS too.
    for (const w of await openAll(server.url, ids, key)) w.close();
    const rounds: Array<{ before: number; after: number }> = [];
    let stats: Record<'before' | 'idle' | 'watched' | 'later', { connections: number; commits: number }> | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      const before = await rssSettled(server.child.pid!, inspectorUrl);
      const statsBefore = await database.stats?.();
      if (database.stats && round === 0) await sleep(WINDOW_MS);
      const statsIdle = await database.stats?.();
      watchers.push(...(await openAll(server.url, ids, key)));
      const after = await rssSettled(server.child.pid!, inspectorUrl);
      const statsWatched = await database.stats?.();
      rounds.push({ before, after });
      if (database.stats && round === 0) await sleep(WINDOW_MS);
      const statsLater = await database.stats?.();
      if (statsBefore && statsIdle && statsWatched && statsLater && round === 0)
        stats = { before: statsBefore, idle: statsIdle, watched: statsWatched, later: statsLater };
      if (round < ROUNDS - 1) for (const w of watchers.splice(0)) w.close();
    }

    // Alive: a canceled task's stream brings its final state.
    for (let i = 0; i < CHECK; i++)
      await fetch(`${server.url}/v1/video/generations/${ids[i]}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
      });
    await Promise.all(watchers.slice(0, CHECK).map((w) => w.until((text) => text.includes('"FAILURE"'))));

    const added = rounds.map((r) => (r.after - r.before) / MB);
    const mid = median(added);
    const parts = [
      `${database.name}: ${WATCHERS} idle watchers`,
      `RSS added ${mid.toFixed(1)} MB (median of ${ROUNDS} rounds: ${added.map((a) => a.toFixed(1)).join(', ')}; ` +
        `${((mid * 1024) / WATCHERS).toFixed(1)} KB each; aim ≤ 50 MB), RSS ${rounds.map((r) => `${(r.before / MB).toFixed(0)} → ${(r.after / MB).toFixed(0)}`).join(', ')} MB, ` +
        `ratio ${median(rounds.map((r) => r.after / r.before)).toFixed(2)}; largest ${Math.max(...added).toFixed(1)} MB`,
    ];
    if (stats) {
      const seconds = WINDOW_MS / 1000;
      parts.push(
        `database connections ${stats.before.connections} → ${stats.watched.connections} (aim: none per watcher)`,
        `transactions/s idle ${((stats.idle.commits - stats.before.commits) / seconds).toFixed(2)} without watchers, ` +
          `${((stats.later.commits - stats.watched.commits) / seconds).toFixed(2)} with them`,
      );
    }
    parts.push(`${CHECK} canceled tasks' streams brought their final state`, load());
    console.log(parts.join(' | '));
  } finally {
    for (const w of watchers) w.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.platform !== 'linux') {
  console.log('sse watchers: skipped, it reads /proc (Linux only)');
  process.exit(0);
}
const build = spawnSync(process.execPath, ['packages/server/scripts/build-if-stale.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

await run({ name: 'SQLite' });
const postgres = await createPostgresDatabase();
if (typeof postgres === 'string') console.log(`PostgreSQL: skipped, ${postgres}`);
else {
  const name = new URL(postgres.location).pathname.slice(1);
  // Connected to another database, so the counts of the server's hold none of the bench's own.
  const adminUrl = new URL(postgres.location);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    await run({
      name: 'PostgreSQL',
      url: postgres.location,
      async stats() {
        // pg_stat_database is a snapshot per transaction: cleared so each read sees the latest counts.
        await admin.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await admin.query(
          `SELECT (SELECT count(*)::int FROM pg_stat_activity WHERE datname = $1) AS connections,
                  (SELECT xact_commit::bigint FROM pg_stat_database WHERE datname = $1) AS commits`,
          [name],
        );
        return { connections: rows[0].connections, commits: Number(rows[0].commits) };
      },
    });
  } finally {
    await admin.end();
    await postgres.drop();
  }
}
