import pg from 'pg';
import type { Logger } from 'pino';
import type { TaskEvents } from '../../engine/task-events.ts';

const QUEUED = 'vidgen_task_queued';
const CANCELED = 'vidgen_task_canceled';

/**
 * Carries wake-up hints between processes with LISTEN/NOTIFY: a submit in an API process
 * wakes idle workers everywhere, a cancel stops the attempt on whichever worker runs it.
 * Only hints: a lost notification (reconnect, restart) costs one poll interval, since
 * workers poll the tasks table, which stays the truth.
 */
export async function bridgePostgresWakeups(url: string, events: TaskEvents, logger: Logger): Promise<{ close(): Promise<void> }> {
  const publisher = new pg.Pool({ connectionString: url, max: 1 });
  // An idle publisher connection the server ends would otherwise crash the process; the next hint reconnects.
  publisher.on('error', (err) => logger.warn({ err }, 'wake-up publisher connection lost'));
  let listener: pg.Client | undefined;
  let closed = false;

  const connect = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    client.on('notification', ({ channel, payload }) => {
      if (!payload) return;
      if (channel === QUEUED) events.taskQueued(payload, true);
      if (channel === CANCELED) events.taskCanceled(payload, true);
    });
    client.on('error', (err) => logger.warn({ err }, 'wake-up listener lost; polling continues'));
    client.on('end', () => {
      if (!closed) setTimeout(() => void connect().catch(() => undefined), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${QUEUED}`);
    await client.query(`LISTEN ${CANCELED}`);
    listener = client;
  };
  await connect();

  const notify = (channel: string, payload: string) =>
    publisher.query('SELECT pg_notify($1, $2)', [channel, payload]).catch((err) => logger.warn({ err }, 'wake-up hint not sent'));
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
