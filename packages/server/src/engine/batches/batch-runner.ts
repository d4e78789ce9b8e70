import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Batch, BatchLine, LineError } from '../../domain/batch.ts';
import type { Lease } from '../../domain/lease.ts';
import type { Task } from '../../domain/task.ts';
import { newId } from '../../domain/ids.ts';
import type { Account, AccountStore } from '../../store/account-store.ts';
import type { BatchChange, BatchStore } from '../../store/batch-store.ts';
import type { FileStore } from '../../store/file-store.ts';
import type { TaskStore } from '../../store/task-store.ts';
import type { BlobStore } from '../../blobs/blob-store.ts';
import { ApiError } from '../../errors.ts';
import { BATCH_FILE_MAX_BYTES, BATCH_FILE_MAX_LINES } from '../jsonl-file.ts';
import type { FileService } from '../file-service.ts';
import type { TaskService } from '../task-service.ts';
import type { LineSubmitter } from './line-submitter.ts';
import { checkEnvelope, customIdOf, inputLines, parseLine, type InputLine } from './batch-input.ts';
import { writeBatchFiles } from './batch-output.ts';

export interface BatchRunnerDeps {
  batches: BatchStore;
  files: FileStore;
  fileService: FileService;
  blobs: BlobStore;
  accounts: Pick<AccountStore, 'findAccount'>;
  tasks: Pick<TaskService, 'cancel'>;
  /** Reads a line's task where its record came after its end (engine/batches/batch-output.ts). */
  taskStore: Pick<TaskStore, 'get'>;
  submitter: LineSubmitter;
  render(task: Task): Record<string, unknown>;
  /** How long a batch's files (and videos) are kept after it ends. */
  keepMs: number;
  leaseMs: number;
  /** Where the batch's files are written before they are stored (engine/batches/batch-output.ts). */
  workRoot: string;
  clock: () => number;
  logger: Logger;
}

/** Lines taken between two writes of the batch's row: what a kill makes a resumed sweep do again at most. */
export const CHUNK_LINES = 100;
/** Refusals of a line's price: in the error file as OpenAI's `insufficient_quota`. */
const QUOTA_CODES = new Set(['insufficient_credits', 'spend_cap_exceeded', 'key_quota_exceeded']);

/**
 * One claimed batch taken as far as it can go now (docs/batch.md, "Statuses"): its file checked,
 * its lines taken a chunk at a time (each queued as a task or refused into the error file), a
 * cancel or an expiry carried out, and once every line ended, its files written and its final
 * status set. Every write is behind the batch's lease: a step whose lease was lost stops, and
 * whoever claims the batch next goes on from what the row says (the lines taken so far).
 */
export class BatchRunner {
  constructor(private readonly deps: BatchRunnerDeps) {}

  async work(claimed: { batch: Batch; lease: Lease }, stopping: () => boolean): Promise<void> {
    const { lease } = claimed;
    let batch: Batch | undefined = claimed.batch;
    if (batch.status === 'validating') batch = await this.validate(batch, lease);
    if (!batch || batch.status === 'failed') return;
    if (batch.ending === null && this.deps.clock() >= batch.expiresAt && batch.status === 'in_progress')
      batch = await this.advance(lease, { ending: 'expired' });
    if (batch && batch.ending !== null && !(await this.endLines(batch, lease))) return;
    if (batch && batch.queued < batch.total && !stopping()) batch = await this.takeRest(batch, lease, stopping);
    if (!batch || stopping()) return;
    // Lines queued before a cancel or an expiry was seen are ended too.
    if (batch.ending !== null) {
      if (!(await this.endLines(batch, lease))) return;
      batch = await this.advance(lease, {});
    }
    if (batch && batch.queued >= batch.total && batch.completed + batch.failed >= batch.total)
      await this.finalize(batch, lease);
  }

  private advance(lease: Lease, change: BatchChange): Promise<Batch | undefined> {
    const now = this.deps.clock();
    return this.deps.batches.advance(lease, change, now, this.deps.leaseMs);
  }

  /**
   * `validating`: the file is read as JSONL within OpenAI's limits, or the whole batch fails. A
   * `custom_id` seen before is refused here (a set of this batch's ids, at most 50,000); every other
   * rule of a line is its endpoint's, checked as the line is taken.
   */
  private async validate(batch: Batch, lease: Lease): Promise<Batch | undefined> {
    const fail = (code: string, message: string, line: number | null = null) =>
      this.end(batch, lease, {
        status: 'failed',
        ending: 'failed',
        failedAt: this.deps.clock(),
        errors: [{ code, message, param: line === null ? 'input_file_id' : null, line }],
      }).then(() => undefined);
    const file = await this.deps.files.get(batch.inputFileId);
    if (!file) return fail('invalid_file', 'The input file was deleted before the batch read it.');
    if (file.bytes > BATCH_FILE_MAX_BYTES)
      return fail('invalid_file', `The input file is over ${BATCH_FILE_MAX_BYTES / 2 ** 20} MB.`);
    let total = 0;
    for await (const line of inputLines(await this.deps.blobs.read(file.blobKey))) {
      total++;
      if (total > BATCH_FILE_MAX_LINES)
        return fail('invalid_file', `The input file has more than ${BATCH_FILE_MAX_LINES} lines.`);
      if (!parseLine(line.text))
        return fail('invalid_json_line', `Line ${line.number} is not a JSON object.`, line.number);
    }
    if (total === 0) return fail('invalid_file', 'The input file has no lines.');
    return this.advance(lease, { status: 'in_progress', total, inProgressAt: this.deps.clock() });
  }

  /**
   * The lines not taken yet, a chunk at a time, each chunk recorded with the count of lines taken
   * in one transaction: a kill loses at most the chunk in hand, which the next pass takes again
   * (its submits replay: engine/batches/line-submitter.ts).
   */
  private async takeRest(batch: Batch, lease: Lease, stopping: () => boolean): Promise<Batch | undefined> {
    const file = await this.deps.files.get(batch.inputFileId);
    const account = await this.deps.accounts.findAccount(batch.accountId);
    if (!file || !account) {
      // The account's file was deleted meanwhile: what is left of the batch ends as if cancelled.
      return this.advance(lease, { ending: 'cancelled', queued: batch.total, addFailed: batch.total - batch.queued });
    }
    let current = batch;
    let chunk: InputLine[] = [];
    for await (const line of inputLines(await this.deps.blobs.read(file.blobKey), batch.queued)) {
      chunk.push(line);
      const upTo = line.index + 1;
      if (upTo % CHUNK_LINES !== 0 && upTo < batch.total) continue;
      const next = await this.takeChunk(current, lease, account, chunk, upTo);
      chunk = [];
      // Another sweeper holds it now, every line is taken, or this process stops (the next pass goes on).
      if (!next || next.queued >= next.total || stopping()) return next;
      current = next;
      if (current.ending === null && this.deps.clock() >= current.expiresAt) {
        const expiring = await this.advance(lease, { ending: 'expired' });
        if (!expiring) return undefined;
        current = expiring;
      }
    }
    return current;
  }

  /**
   * One chunk: lines recorded already (by a sweeper killed before it counted them) are kept as they
   * are; a `custom_id` an earlier line has is refused (looked up among the batch's line records, so
   * no set of the file's ids is held); every other line goes to its endpoint.
   */
  private async takeChunk(
    batch: Batch,
    lease: Lease,
    account: Account,
    lines: InputLine[],
    upTo: number,
  ): Promise<Batch | undefined> {
    const recorded = new Set((await this.deps.batches.lines(batch.id, lines[0].index, upTo)).map((l) => l.line));
    const ids = [...new Set(lines.map((l) => customIdOf(parseLine(l.text))).filter((id) => id !== undefined))];
    const firstLines = await this.deps.batches.firstLinesOf(batch.id, ids);
    const taken: BatchLine[] = [];
    for (const line of lines) {
      if (recorded.has(line.index)) continue;
      const value = parseLine(line.text);
      const customId = customIdOf(value);
      const first = customId === undefined ? undefined : firstLines.get(customId);
      if (customId !== undefined && first !== undefined && first < line.index) {
        const message = `\`custom_id\` '${customId}' is used by an earlier line; each line needs its own.`;
        taken.push(refusedLine(line.index, customId, { code: 'duplicate_custom_id', message, param: 'custom_id' }));
        continue;
      }
      if (customId !== undefined && first === undefined) firstLines.set(customId, line.index);
      taken.push(await this.takeLine(batch, account, line.index, value));
    }
    const refused = taken.filter((l) => l.taskId === null).length;
    const now = this.deps.clock();
    return this.deps.batches.recordLines(lease, taken, { queued: upTo, addFailed: refused }, now, this.deps.leaseMs);
  }

  private async takeLine(
    batch: Batch,
    account: Account,
    index: number,
    value: Record<string, unknown> | undefined,
  ): Promise<BatchLine> {
    const customId = customIdOf(value) ?? '';
    if (batch.ending !== null) return refusedLine(index, customId, endedBeforeStart(batch));
    const envelope = value
      ? checkEnvelope(value, batch.endpoint)
      : { error: { code: 'invalid_json_line', message: 'The line is not a JSON object.' } };
    if ('error' in envelope) return refusedLine(index, customId, envelope.error);
    const outcome = await this.deps.submitter.submit({
      account,
      keyId: batch.keyId,
      endpoint: batch.endpoint,
      body: envelope.body,
      batchId: batch.id,
      line: index,
    });
    if (outcome.kind === 'queued') return { ...blankLine(index, customId), taskId: outcome.taskId };
    if (QUOTA_CODES.has(outcome.error.code))
      return refusedLine(index, customId, { code: 'insufficient_quota', message: outcome.error.message });
    return {
      ...refusedLine(index, customId, outcome.error),
      statusCode: outcome.status,
      body: outcome.body,
    };
  }

  /** A cancel ends every unfinished line; an expiry the queued ones (running lines finish and count). */
  private async endLines(batch: Batch, lease: Lease): Promise<boolean> {
    const cancelling = batch.status === 'cancelling';
    const statuses = cancelling ? ['queued', 'running'] : ['queued'];
    for (;;) {
      const ids = await this.deps.batches.tasksIn(batch.id, statuses, 100);
      for (const id of ids) {
        await this.deps.tasks.cancel(batch.accountId, id, !cancelling).catch((err) => {
          if (!(err instanceof ApiError)) throw err;
        });
      }
      if (ids.length < 100) return true;
      // A long cancel keeps its lease, or stops once another sweeper has the batch.
      if (!(await this.advance(lease, {}))) return false;
    }
  }

  /** Every line ended: the files are written, and the batch reaches its final status with its event. */
  private async finalize(batch: Batch, lease: Lease): Promise<void> {
    const now = this.deps.clock();
    const ready =
      batch.status === 'finalizing' ? batch : await this.advance(lease, { status: 'finalizing', finalizingAt: now });
    if (!ready) return;
    const keepUntil = now + this.deps.keepMs;
    const files = await writeBatchFiles(
      {
        batches: this.deps.batches,
        tasks: this.deps.taskStore,
        files: this.deps.fileService,
        render: this.deps.render,
        workRoot: this.deps.workRoot,
      },
      ready,
      keepUntil,
    );
    const end: BatchChange =
      ready.status === 'cancelling'
        ? { status: 'cancelled', cancelledAt: now }
        : ready.ending === 'expired'
          ? { status: 'expired', expiredAt: now }
          : { status: 'completed', completedAt: now };
    await this.end(ready, lease, { ...end, ...files });
  }

  /** The final change and its event; then the batch's input file and videos are kept as long as its files. */
  private async end(batch: Batch, lease: Lease, change: BatchChange): Promise<void> {
    const now = this.deps.clock();
    if (!(await this.deps.batches.end(lease, change))) return;
    const keepUntil = now + this.deps.keepMs;
    await this.deps.files.expireAt([batch.inputFileId], keepUntil);
    await this.deps.batches.keepVideosUntil(batch.id, keepUntil);
  }
}

function blankLine(index: number, customId: string): BatchLine {
  return {
    line: index,
    id: `batch_req_${randomBytes(12).toString('hex')}`,
    customId,
    requestId: newId('req'),
    taskId: null,
    outcome: null,
    statusCode: null,
    error: null,
    body: null,
  };
}

function refusedLine(index: number, customId: string, error: LineError): BatchLine {
  return { ...blankLine(index, customId), outcome: 'failed', error };
}

function endedBeforeStart(batch: Batch): LineError {
  return batch.status === 'cancelling'
    ? { code: 'batch_cancelled', message: 'The batch was cancelled before this line started.' }
    : { code: 'batch_expired', message: "The batch's 24h completion window ended before this line started." };
}
