import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { TaskEvents } from '../../domain/task-events.ts';
import type { WakeupBridge } from './sql-dialect.ts';

const QUEUED = 'vidgen_task_queued';
const CANCELED = 'vidgen_task_canceled';
const CHANGED = 'vidgen_task_changed';
/** Ids per change hint: 36 characters and a comma each, well inside NOTIFY's 8000-byte payload. */
const IDS_PER_HINT = 150;
/** Changed tasks waiting for a hint while the database does not answer: hints only, the rest is dropped. */
const MAX_PENDING_CHANGES = 10_000;

/**
 * Carries wake-up hints between processes with LISTEN/NOTIFY: a submit in an API process
 * wakes idle workers everywhere, a cancel stops the attempt on whichever worker runs it, and a
 * task's change (state, progress) in a worker wakes the long-polls and streams that watch it
 * in API processes. Only hints: a lost notification (reconnect, restart) costs one poll
 * interval, since workers poll the tasks table and watchers re-read it, which stays the truth.
 */
export async function bridgePostgresWakeups(url: string, events: TaskEvents, logger: Logger): Promise<WakeupBridge> {
  const publisher = new pg.Pool({ connectionString: url, max: 1 });
  // An idle publisher connection the server ends would otherwise crash the process; the next hint reconnects.
  publisher.on('error', (err) => logger.warn({ err }, 'wake-up publisher connection lost'));
  publisher.on('connect', (client) => client.on('error', () => undefined));
  let listener: pg.Client | undefined;
  let closed = false;
  /** Tells this process's change hints from others' when they come back to it. */
  const origin = randomBytes(6).toString('hex');

  // Reconnects for as long as the bridge is open, whatever ended the last connection (a
  // terminated backend, a restart, a failed connect while the server is down): backing off to
  // 5 s, each try a fresh client. Hints lost meanwhile cost a poll interval.
  let retryMs = 250;
  const reconnectLater = () => {
    if (closed) return;
    setTimeout(() => void connect().catch(() => reconnectLater()), retryMs).unref();
    retryMs = Math.min(retryMs * 2, 5000);
  };
  const connect = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    let ended = false;
    const lost = () => {
      if (ended) return;
      ended = true;
      if (listener === client) listener = undefined;
      void client.end().catch(() => undefined);
      reconnectLater();
    };
    client.on('notification', ({ channel, payload }) => {
      if (!payload) return;
      if (channel === QUEUED) events.taskQueued(payload, true);
      if (channel === CANCELED) events.taskCanceled(payload, true);
      if (channel === CHANGED) {
        const [from, ids = ''] = payload.split(' ');
        // This process's own hints come back too (it listens where it notifies): its watchers heard them already.
        if (from !== origin) for (const id of ids.split(',')) if (id) events.taskChanged(id, true);
      }
    });
    client.on('error', (err) => {
      logger.warn({ err }, 'wake-up listener lost; polling continues');
      lost();
    });
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${QUEUED}`);
      await client.query(`LISTEN ${CANCELED}`);
      await client.query(`LISTEN ${CHANGED}`);
    } catch (err) {
      ended = true;
      void client.end().catch(() => undefined);
      throw err;
    }
    if (closed) return void (await client.end().catch(() => undefined));
    listener = client;
    retryMs = 250;
  };
  await connect();
  const notify = (channel: string, payload: string) =>
    publisher
      .query('SELECT pg_notify($1, $2)', [channel, payload])
      .catch((err) => logger.warn({ err }, 'wake-up hint not sent'));
  // A render writes its progress about a hundred times: the tasks that change while a hint is on
  // its way go together in the next one, so a busy worker sends a few hints, not one per write.
  const changed = new Set<string>();
  let sending = false;
  const sendChanges = async () => {
    if (sending) return;
    sending = true;
    try {
      while (changed.size > 0 && !closed) {
        const ids = [...changed].slice(0, IDS_PER_HINT);
        for (const id of ids) changed.delete(id);
        await notify(CHANGED, `${origin} ${ids.join(',')}`);
      }
    } finally {
      sending = false;
    }
  };
  const offQueued = events.onQueued((backend, remote) => void (remote || notify(QUEUED, backend)));
  const offCanceled = events.onCanceled((taskId, remote) => void (remote || notify(CANCELED, taskId)));
  const offChanged = events.onChanged((taskId, remote) => {
    if (remote || changed.size >= MAX_PENDING_CHANGES) return;
    changed.add(taskId);
    void sendChanges();
  });
  return {
    crossesProcesses: true,
    async close() {
      closed = true;
      offQueued();
      offCanceled();
      offChanged();
      await listener?.end().catch(() => undefined);
      await publisher.end();
    },
  };
}
