import { createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import type { Batch, BatchLine, LineError } from '../../domain/batch.ts';
import type { Task } from '../../domain/task.ts';
import type { BatchStore } from '../../store/batch-store.ts';
import type { TaskStore } from '../../store/task-store.ts';
import type { FileService } from '../file-service.ts';
import { WorkDir } from '../work-dir.ts';
import { workDirPrefix } from '../work-root-sweeper.ts';

export interface BatchOutputDeps {
  batches: BatchStore;
  tasks: Pick<TaskStore, 'get'>;
  files: FileService;
  /** A finished line's answer (engine/batches/batch-line-effects.ts), for a line whose record came after its end. */
  render(task: Task): Record<string, unknown>;
  /**
   * The work root: the files are written in a directory of this process's there before they are
   * stored, named as attempts' are, so a restart after kill -9 sweeps what a dead writer left.
   */
  workRoot: string;
}

/** Line records read at a time: memory stays flat in the size of the batch. */
const PAGE = 500;

/**
 * The batch's output file (one line per line that finished with a video) and error file (refused
 * lines and lines whose task failed, each with its code), written a page of line records at a time
 * and stored as the account's files (`batch_output`), kept until `keepUntil`. A file with no line
 * is not made (its id stays null, as OpenAI's).
 */
export async function writeBatchFiles(
  deps: BatchOutputDeps,
  batch: Batch,
  keepUntil: number,
): Promise<{ outputFileId: string | null; errorFileId: string | null }> {
  const workDir = new WorkDir(deps.workRoot, () => workDirPrefix(batch.id));
  const output = new JsonlWriter(() => join(workDir.path, 'output.jsonl'));
  const errors = new JsonlWriter(() => join(workDir.path, 'error.jsonl'));
  try {
    for (let from = 0; from < batch.total; from += PAGE) {
      for (const line of await deps.batches.lines(batch.id, from, from + PAGE)) {
        const ended = await endedLine(deps, line);
        if (ended.body) await output.write(answerLine(line, 200, ended.body));
        else if (line.statusCode !== null && line.body)
          await errors.write(answerLine(line, line.statusCode, line.body));
        else await errors.write(errorLine(line, lineError(batch, ended.error)));
      }
    }
    const store = async (writer: JsonlWriter, kind: string) =>
      (await writer.close()) === 0
        ? null
        : (
            await deps.files.store(
              batch.accountId,
              {
                filename: `${batch.id}_${kind}.jsonl`,
                path: writer.path,
                bytes: (await stat(writer.path)).size,
                purpose: 'batch_output',
                mimeType: 'application/jsonl',
                lines: writer.lines,
              },
              keepUntil,
            )
          ).id;
    return { outputFileId: await store(output, 'output'), errorFileId: await store(errors, 'error') };
  } finally {
    await output.close();
    await errors.close();
    await workDir.remove();
  }
}

/** A line's answer or error as its end froze it, or (its record written after its task ended) as its task says. */
async function endedLine(
  deps: BatchOutputDeps,
  line: BatchLine,
): Promise<{ body?: Record<string, unknown>; error: LineError }> {
  if (line.outcome === 'succeeded' && line.body) return { body: line.body, error: { code: '', message: '' } };
  if (line.outcome !== null || line.taskId === null)
    return { error: line.error ?? { code: 'failed', message: 'The line failed.' } };
  const task = await deps.tasks.get(line.taskId);
  if (task?.status === 'succeeded' || task?.status === 'expired')
    return { body: deps.render(task), error: task.error ?? { code: '', message: '' } };
  return { error: task?.error ?? { code: 'failed', message: 'The line failed.' } };
}

/** A canceled line says why its batch canceled it. */
function lineError(batch: Batch, error: LineError): LineError {
  if (error.code !== 'canceled') return error;
  if (batch.status === 'cancelling')
    return { code: 'batch_cancelled', message: 'The batch was cancelled before this line ended.' };
  if (batch.ending === 'expired') {
    return {
      code: 'batch_expired',
      message: "The batch's 24h completion window ended before this line started; its hold was released.",
    };
  }
  return error;
}

function answerLine(line: BatchLine, statusCode: number, body: Record<string, unknown>) {
  return {
    id: line.id,
    custom_id: line.customId || null,
    response: { status_code: statusCode, request_id: line.requestId, body },
    error: null,
  };
}

function errorLine(line: BatchLine, error: LineError) {
  return {
    id: line.id,
    custom_id: line.customId || null,
    response: null,
    error: { code: error.code, message: error.message, ...(error.param ? { param: error.param } : {}) },
  };
}

/** Lines appended to a file, waiting for the disk when it is behind (never the whole file in memory). */
class JsonlWriter {
  lines = 0;
  private stream: WriteStream | undefined;
  private closed = false;

  private made: string | undefined;

  /** `where` is asked on the first write, so a file with no line makes no directory. */
  constructor(private readonly where: () => string) {}

  get path(): string {
    this.made ??= this.where();
    return this.made;
  }

  async write(value: unknown): Promise<void> {
    this.stream ??= createWriteStream(this.path);
    this.lines++;
    if (!this.stream.write(`${JSON.stringify(value)}\n`)) await once(this.stream, 'drain');
  }

  /** The number of lines written. */
  async close(): Promise<number> {
    if (this.stream && !this.closed) {
      this.closed = true;
      this.stream.end();
      await once(this.stream, 'close');
    }
    return this.lines;
  }
}
