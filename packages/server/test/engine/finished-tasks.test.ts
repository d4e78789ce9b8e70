import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FinishedTasks } from '../../src/engine/finished-tasks.ts';
import { TaskService } from '../../src/engine/task-service.ts';
import type { Task, TaskStatus } from '../../src/domain/task.ts';
import type { TaskStore } from '../../src/store/task-store.ts';
import { NotFound } from '../../src/errors.ts';

function task(id: string, status: TaskStatus, expiresAt: number | null = null, accountId = 'acct-a'): Task {
  return {
    id,
    accountId,
    family: 'B',
    kind: 'generate',
    model: 'video-v1-5s',
    backend: 'ffmpeg',
    status,
    progress: 0,
    params: { prompt: 'p', images: [], duration: 5, aspectRatio: '16:9', width: 1280, height: 720, fps: 24 },
    error: null,
    result: null,
    attempts: 1,
    createdAt: 0,
    startedAt: null,
    finishedAt: null,
    expiresAt,
    idempotencyKey: null,
    revision: 0,
    serviceTier: 'default',
    batchId: null,
  } as Task;
}

describe('finished tasks remembered by a process', () => {
  it('keeps failed, canceled and expired tasks, and a succeeded one only until it expires', () => {
    const finished = new FinishedTasks();
    for (const status of ['failed', 'canceled', 'expired'] as const) {
      finished.remember(task(status, status), 1_000);
      assert.equal(finished.get(status, 10 ** 12)?.status, status, `${status} never changes again`);
    }
    finished.remember(task('done', 'succeeded', 5_000), 1_000);
    assert.equal(finished.get('done', 4_999)?.status, 'succeeded');
    assert.equal(finished.get('done', 5_000), undefined, 'at expiresAt the sweeper may turn it expired: read it again');
    assert.equal(finished.get('done', 4_999), undefined, 'and it was forgotten');
    finished.remember(task('late', 'succeeded', 5_000), 5_000);
    assert.equal(finished.get('late', 4_000), undefined, 'a task read when already due is not kept');
    finished.remember(task('kept', 'succeeded', null), 0);
    assert.ok(finished.get('kept', 10 ** 12), 'a result without retention never expires');
  });

  it('never keeps a task that can still change', () => {
    const finished = new FinishedTasks();
    for (const status of ['queued', 'running'] as const) finished.remember(task(status, status), 0);
    assert.equal(finished.get('queued', 0), undefined);
    assert.equal(finished.get('running', 0), undefined);
  });

  it('holds a bounded number of tasks, forgetting the oldest first', () => {
    const finished = new FinishedTasks();
    for (let i = 0; i < 6_000; i++) finished.remember(task(`t${i}`, 'failed'), 0);
    assert.equal(finished.get('t0', 0), undefined);
    assert.ok(finished.get('t5999', 0));
  });
});

describe('TaskService.get', () => {
  function serviceOver(rows: Map<string, Task>) {
    const reads: string[] = [];
    const store = { get: async (id: string) => (reads.push(id), rows.get(id)) } as unknown as TaskStore;
    const service = new TaskService({ tasks: store, clock: () => 1_000 } as unknown as ConstructorParameters<
      typeof TaskService
    >[0]);
    return { service, reads };
  }

  it('reads a finished task from the database once, an unfinished one every time', async () => {
    const rows = new Map([
      ['done', task('done', 'succeeded', 60_000)],
      ['busy', task('busy', 'running')],
    ]);
    const { service, reads } = serviceOver(rows);
    for (let i = 0; i < 3; i++) {
      assert.equal((await service.get('acct-a', 'done')).status, 'succeeded');
      assert.equal((await service.get('acct-a', 'busy')).status, 'running');
    }
    assert.deepEqual(
      reads.filter((id) => id === 'done'),
      ['done'],
    );
    assert.deepEqual(
      reads.filter((id) => id === 'busy'),
      ['busy', 'busy', 'busy'],
    );
  });

  it("answers another account's remembered task as not found", async () => {
    const { service } = serviceOver(new Map([['done', task('done', 'failed')]]));
    await service.get('acct-a', 'done');
    await assert.rejects(service.get('acct-b', 'done'), NotFound);
  });
});
