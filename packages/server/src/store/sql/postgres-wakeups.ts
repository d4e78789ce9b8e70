import pg from 'pg';
import type { Logger } from 'pino';
import type { TaskEvents } from '../../domain/task-events.ts';

const QUEUED = 'vidgen_task_queued';
const CANCELED = 'vidgen_task_canceled';

/**
 * Carries wake-up hints between processes with LISTEN/NOTIFY: a submit in an API process
 * wakes idle workers everywhere, a cancel stops the attempt on whichever worker runs it.
 * Only hints: a lost notification (reconnect, restart) costs one poll interval, since
 * workers poll the tasks table, which stays the truth.
 */
export async function bridgePostgresWakeups(
  url: string,
  events: TaskEvents,
  logger: Logger,
): Promise<{ close(): Promise<void> }> {
  const publisher = new pg.Pool({ connectionString: url, max: 1 });
  // An idle publisher connection the server ends would otherwise crash the process; the next hint reconnects.
  publisher.on('error', (err) => logger.warn({ err }, 'wake-up publisher connection lost'));
  publisher.on('connect', (client) => client.on('error', () => undefined));
  let listener: pg.Client | undefined;
  let closed = false;

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
  const offQueued = events.onQueued((backend, remote) => void (remote || notify(QUEUED, backend)));
  const offCanceled = events.onCanceled((taskId, remote) => void (remote || notify(CANCELED, taskId)));
  return {
    async close() {
      closed = true;
      offQueued();
      offCanceled();
      await listener?.end().catch(() => undefined);
      await publisher.end();
    },
  };
}
