import type { Account } from '../../store/account-store.ts';
import type { BatchStore } from '../../store/batch-store.ts';
import type { FileStore } from '../../store/file-store.ts';
import { COMPLETION_WINDOW_MS, type Batch } from '../../domain/batch.ts';
import { uuidv7 } from '../../domain/ids.ts';
import { Conflict, InvalidRequest, NotFound } from '../../errors.ts';

export interface CreateBatch {
  inputFileId: string;
  endpoint: string;
  completionWindow: string;
  metadata?: Record<string, string> | null;
}

/** OpenAI's limits on a batch's metadata. */
const METADATA = { pairs: 16, keyChars: 64, valueChars: 512 };

/**
 * The Batch API's requests (docs/batch.md): a batch is created `validating` and left to the batch
 * sweeper (engine/batches/batch-sweeper.ts), which takes it through its life in whatever worker
 * process claims it. Another account's batch is indistinguishable from a missing one.
 */
export class BatchService {
  constructor(
    private readonly deps: {
      batches: BatchStore;
      files: FileStore;
      /** The endpoints a batch may name: those of the create routes served (engine/batches/line-submitter.ts). */
      endpoints: readonly string[];
      clock: () => number;
    },
  ) {}

  async create(account: Account, request: CreateBatch, keyId?: string): Promise<Batch> {
    if (!this.deps.endpoints.includes(request.endpoint)) {
      throw new InvalidRequest(
        'invalid_value',
        `\`endpoint\` '${request.endpoint}' is not offered; it offers ${this.deps.endpoints.join(', ')}.`,
        'endpoint',
      );
    }
    if (request.completionWindow !== '24h') {
      throw new InvalidRequest('invalid_value', "`completion_window` must be '24h'.", 'completion_window');
    }
    const metadata = checkMetadata(request.metadata);
    const file = await this.deps.files.get(request.inputFileId);
    const now = this.deps.clock();
    if (!file || file.accountId !== account.id || (file.expiresAt != null && file.expiresAt <= now)) {
      throw new NotFound('file', request.inputFileId, 'input_file_id');
    }
    if (file.purpose !== 'batch') {
      throw new InvalidRequest(
        'invalid_file',
        `\`input_file_id\` names a file with purpose '${file.purpose}'; upload the batch's JSONL with purpose 'batch'.`,
        'input_file_id',
      );
    }
    // Ids grow with time, so the newest-first listing walks the primary key.
    const id = `batch_${uuidv7(now).replaceAll('-', '')}`;
    return this.deps.batches.insert({
      id,
      accountId: account.id,
      keyId: keyId ?? null,
      endpoint: request.endpoint,
      inputFileId: file.id,
      completionWindow: '24h',
      metadata,
      createdAt: now,
      expiresAt: now + COMPLETION_WINDOW_MS,
    });
  }

  async get(accountId: string, id: string): Promise<Batch> {
    const batch = await this.deps.batches.get(id);
    if (!batch || batch.accountId !== accountId) throw new NotFound('batch', id);
    return batch;
  }

  async list(
    accountId: string,
    after: string | undefined,
    limit: number,
  ): Promise<{ batches: Batch[]; hasMore: boolean }> {
    const rows = await this.deps.batches.list(accountId, after, limit + 1);
    return { batches: rows.slice(0, limit), hasMore: rows.length > limit };
  }

  /**
   * `cancelling` at once; the sweeper then cancels its lines (unstarted ones never start, running
   * ones under the usual refund rules) and makes it `cancelled`. A batch already cancelling answers as it is.
   */
  async cancel(accountId: string, id: string): Promise<Batch> {
    const batch = await this.get(accountId, id);
    if (batch.status === 'cancelling') return batch;
    const cancelling = await this.deps.batches.requestCancel(id, this.deps.clock());
    if (cancelling) return cancelling;
    const now = await this.get(accountId, id);
    if (now.status === 'cancelling') return now;
    throw new Conflict('batch_not_cancelable', `The batch is ${now.status} and can no longer be cancelled.`);
  }
}

function checkMetadata(metadata: Record<string, string> | null | undefined): Record<string, string> | null {
  if (metadata === undefined || metadata === null) return null;
  const entries = Object.entries(metadata);
  if (entries.length > METADATA.pairs) {
    throw new InvalidRequest('invalid_value', `\`metadata\` may hold at most ${METADATA.pairs} pairs.`, 'metadata');
  }
  for (const [key, value] of entries) {
    if (key.length > METADATA.keyChars) {
      throw new InvalidRequest(
        'invalid_value',
        `\`metadata\` keys may be at most ${METADATA.keyChars} characters.`,
        `metadata.${key.slice(0, 64)}`,
      );
    }
    if (typeof value !== 'string' || value.length > METADATA.valueChars) {
      throw new InvalidRequest(
        'invalid_value',
        `\`metadata.${key}\` must be a string of at most ${METADATA.valueChars} characters.`,
        `metadata.${key}`,
      );
    }
  }
  return metadata;
}
