import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Task } from '../domain/task.ts';
import { newId } from '../domain/ids.ts';
import type { Dialect } from '../api/dialects/dialect.ts';
import { batchEndpoints } from '../api/submit-routes.ts';
import { toBatchObject } from '../api/batches/batch-wire.ts';
import { frozenEventData } from '../api/webhooks/event-data.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import type { BatchService } from '../engine/batches/batch-service.ts';
import { startBatchSweeper, type BatchSweeper } from '../engine/batches/batch-sweeper.ts';
import { batchLineEffects } from '../engine/batches/batch-line-effects.ts';
import type { FileService } from '../engine/file-service.ts';
import type { TaskService } from '../engine/task-service.ts';
import type { BatchEndEffect } from '../store/sql/sql-batch-store.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import { batchOutbox } from '../webhooks/batch-outbox.ts';
import type { SqlStores } from './open-sql-stores.ts';

/**
 * A finished line's answer in its output file: the task as its dialect's poll shows it, frozen when
 * it ended, with the content route's plain URL (never a signed link), as webhook bodies are.
 */
export function batchLineAnswer(
  dialects: readonly Dialect[],
  baseUrl: () => string,
): (task: Task) => Record<string, unknown> {
  const frozen = frozenEventData(dialects, baseUrl);
  return (task) => (frozen(task).object as Record<string, unknown> | undefined) ?? { id: task.id };
}

/** What commits with a batch's changes: each line's end (with its task's), and a batch's end event (with its own). */
export function batchEffects(deps: {
  config: Config;
  render: (task: Task) => Record<string, unknown>;
  clock: () => number;
}): { lines: TransitionEffects; end: BatchEndEffect } {
  return {
    lines: batchLineEffects({
      render: deps.render,
      keepAfterWindowMs: deps.config.batchFileRetentionSeconds * 1000,
    }),
    end: batchOutbox({ maxAttempts: deps.config.webhooks.maxAttempts, clock: deps.clock, render: toBatchObject }),
  };
}

/** The Batch API's service, built on its first request (the module is not loaded before). */
export function lazyBatchService(deps: {
  stores: SqlStores;
  dialects: readonly Dialect[];
  clock: () => number;
}): () => Promise<BatchService> {
  let service: Promise<BatchService> | undefined;
  return () => {
    service ??= import('../engine/batches/batch-service.ts').then(
      ({ BatchService }) =>
        new BatchService({
          batches: deps.stores.batches,
          files: deps.stores.files,
          endpoints: batchEndpoints(deps.dialects),
          clock: deps.clock,
        }),
    );
    return service;
  };
}

export interface BatchWorkDeps {
  config: Config;
  stores: SqlStores;
  blobs: BlobStore;
  dialects: readonly Dialect[];
  taskService: TaskService;
  fileService: FileService;
  render: (task: Task) => Record<string, unknown>;
  logger: Logger;
  clock: () => number;
}

/**
 * The batch sweeper of a worker process. Its runner, and the line submitter that compiles every
 * create route's body schema, are loaded when it first claims a batch.
 */
export async function startBatchWork(deps: BatchWorkDeps): Promise<BatchSweeper> {
  const { config, stores, clock } = deps;
  // The batch's files are written in the work root, in directories named as attempts' are, so
  // the worker side's start-up sweep removes what a killed process left there.
  const workRoot = join(config.dataDir, 'work');
  await mkdir(workRoot, { recursive: true });
  const leaseMs = config.leaseSeconds * 1000;
  let runner: Promise<import('../engine/batches/batch-runner.ts').BatchRunner> | undefined;
  const load = () => {
    runner ??= Promise.all([
      import('../engine/batches/batch-runner.ts'),
      import('../api/batches/batch-line-submitter.ts'),
    ]).then(
      ([{ BatchRunner }, { createBatchLineSubmitter }]) =>
        new BatchRunner({
          batches: stores.batches,
          files: stores.files,
          fileService: deps.fileService,
          blobs: deps.blobs,
          accounts: stores.accounts,
          tasks: deps.taskService,
          taskStore: stores.tasks,
          submitter: createBatchLineSubmitter(deps.dialects, deps.taskService),
          render: deps.render,
          keepMs: config.batchFileRetentionSeconds * 1000,
          leaseMs,
          workRoot,
          clock,
          logger: deps.logger,
        }),
    );
    runner.catch(() => {
      runner = undefined;
    });
    return runner;
  };
  return startBatchSweeper({
    batches: stores.batches,
    owner: `${hostname()}:${process.pid}:${newId('b', 4)}`,
    leaseMs,
    intervalMs: Math.min(config.pollMs, 1000),
    clock,
    logger: deps.logger.child({ component: 'batches' }),
    load,
  });
}
