/**
 * A batch's file is validated and queued in chunks (docs/batch.md, "Scale"): the batch runner
 * takes a 10,000-line file and a 1,000-line file, each in a fresh child process on a fresh
 * database (the service's real stores, transition effects, dialect checks and task service; no
 * worker, so the lines stay queued). Per round, both sizes back to back, alternating which goes
 * first; the printed ratios are medians of the rounds' ratios (each child first takes a warm-up batch
 * of `--warmup` lines, so that both measure a process whose heap V8 has already sized):
 *   - peak RSS of the intake at 10k ÷ at 1k (aim ≤ 1.10): memory flat in the file's size;
 *   - time per line at 10k ÷ at 1k (aim ≤ 1.20): no line costs more for the lines before it.
 *
 *   node --import tsx bench/batch-intake.bench.ts [--lines 10000] [--small 1000] [--rounds 3] [--db sqlite|postgres]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { openSqlStores } from '../packages/server/src/composition/open-sql-stores.ts';
import { batchEffects, batchLineAnswer } from '../packages/server/src/composition/batch-side.ts';
import { loadConfig } from '../packages/server/src/config.ts';
import { DEFAULT_DIALECTS } from '../packages/server/src/main.ts';
import { createBatchLineSubmitter } from '../packages/server/src/api/batches/batch-line-submitter.ts';
import { batchEndpoints } from '../packages/server/src/api/submit-routes.ts';
import { ledgerEffects } from '../packages/server/src/billing/ledger-effects.ts';
import { keyQuotaEffects } from '../packages/server/src/billing/key-quotas.ts';
import { perKeyRateLimit } from '../packages/server/src/billing/rate-limits.ts';
import { LocalDiskBlobStore } from '../packages/server/src/blobs/local-disk-blob-store.ts';
import { createModelCatalog } from '../packages/server/src/catalog/model-catalog.ts';
import { TaskEvents } from '../packages/server/src/domain/task-events.ts';
import { BatchRunner } from '../packages/server/src/engine/batches/batch-runner.ts';
import { BatchService } from '../packages/server/src/engine/batches/batch-service.ts';
import { FileService } from '../packages/server/src/engine/file-service.ts';
import { MediaInputs } from '../packages/server/src/engine/inputs/media-inputs.ts';
import { VideoInputs } from '../packages/server/src/engine/inputs/video-inputs.ts';
import { TaskService } from '../packages/server/src/engine/task-service.ts';
import { createPostgresDatabase, createSqliteDatabase } from '../packages/server/test/support/databases.ts';
import { FULL, load, median, numberArg } from './support/paired.ts';

const LINES = numberArg('lines', 10_000);
const SMALL = numberArg('small', 1_000);
const WARMUP = numberArg('warmup', 3_000);
const ROUNDS = numberArg('rounds', FULL ? 5 : 3);
const DB = process.argv.includes('postgres') ? 'postgres' : 'sqlite';
const CHILD = process.argv.indexOf('--child');

const MODELS = {
  models: [
    {
      id: 'bench-b',
      family: 'B',
      backend: 'renderer',
      resolution: '144p',
      durations: [1],
      aspect_ratios: ['16:9'],
      price: { usd_ticks_per_second: 1000 },
    },
  ],
};
const unused = async (): Promise<never> => {
  throw new Error('no inputs');
};

/** In a child: takes a file of `lines` lines through validation and queuing; prints ms and peak RSS. */
async function intake(lines: number, location: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-bench-intake-'));
  const clock = Date.now;
  const catalog = createModelCatalog(MODELS, { renderer: ['generate', 'edit', 'extend'] });
  const config = loadConfig({ VIDGEN_DATA_DIR: dir });
  const render = batchLineAnswer(DEFAULT_DIALECTS, () => 'http://127.0.0.1');
  const batch = batchEffects({ config, render, clock });
  const events = new TaskEvents();
  const logger = pino({ level: 'silent' });
  const effects = [ledgerEffects(catalog, clock), keyQuotaEffects(catalog, clock), perKeyRateLimit(), batch.lines];
  const stores = await openSqlStores(location, { events, logger, effects, batchEnd: batch.end });
  const blobs = new LocalDiskBlobStore(join(dir, 'blobs'));
  const inputs = new MediaInputs({
    files: stores.files,
    blobs,
    fetch: { image: unused, audio: unused },
    checkAudio: unused,
  });
  const videos = new VideoInputs({ files: stores.files, blobs, tasks: stores.tasks, fetch: unused, probe: unused });
  const tasks = new TaskService({ tasks: stores.tasks, blobs, catalog, inputs, videos, events, clock });
  const files = new FileService({ files: stores.files, blobs, clock, checkImage: unused, checkVideo: unused });
  const account = await stores.accounts.ensureAccount('bench', null, clock());
  const service = new BatchService({
    batches: stores.batches,
    files: stores.files,
    endpoints: batchEndpoints(DEFAULT_DIALECTS),
    clock,
  });
  const runner = new BatchRunner({
    batches: stores.batches,
    files: stores.files,
    fileService: files,
    blobs,
    accounts: stores.accounts,
    tasks,
    taskStore: stores.tasks,
    submitter: createBatchLineSubmitter(DEFAULT_DIALECTS, tasks),
    render,
    keepMs: 7 * 24 * 3600_000,
    leaseMs: 60_000,
    workRoot: dir,
    clock,
    logger,
  });
  /** One batch of `n` lines through validation and queuing: its time and the process's peak RSS meanwhile. */
  const run = async (n: number, name: string) => {
    const path = join(dir, `${name}.jsonl`);
    const line = (i: number) =>
      JSON.stringify({
        custom_id: `${name}-${i}`,
        method: 'POST',
        url: '/v1/video/generations',
        body: { model: 'bench-b', prompt: `a kite number ${i} over the hill` },
      });
    await writeFile(path, `${Array.from({ length: n }, (_, i) => line(i)).join('\n')}\n`);
    const input = await files.store(account.id, {
      filename: `${name}.jsonl`,
      path,
      bytes: 0,
      purpose: 'batch',
      mimeType: 'application/jsonl',
      lines: n,
    });
    const created = await service.create(account, {
      inputFileId: input.id,
      endpoint: '/v1/video/generations',
      completionWindow: '24h',
    });
    const claimed = await stores.batches.claim('bench', clock(), 60_000);
    if (claimed?.batch.id !== created.id) throw new Error('the batch was not claimed');
    // The kernel's high-water mark of this process's RSS, reset first (Linux: clear_refs 5).
    await writeFile('/proc/self/clear_refs', '5');
    const started = performance.now();
    await runner.work(claimed, () => false);
    const ms = performance.now() - started;
    const peak = highWaterRss();
    await stores.batches.release(claimed.lease);
    const after = await stores.batches.get(created.id);
    if (after?.queued !== n || after.failed !== 0) throw new Error(`queued ${after?.queued}, failed ${after?.failed}`);
    return { ms, peak };
  };
  // The same warm-up in every child first: the process reaches the heap sizes V8 settles on under
  // this work (its young generation grows to its maximum within seconds of steady allocation), so the
  // measured batch shows what the file's size adds, not how long V8 took to size its heap.
  await run(WARMUP, 'warmup');
  // Both sizes start from the same heap: what is left of the warm-up is collected first.
  (globalThis as { gc?: () => void }).gc?.();
  const { ms, peak } = await run(lines, 'measured');
  await stores.close();
  await rm(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ ms, peak }));
}

/** VmHWM of this process, in bytes: its peak RSS since the last reset. */
function highWaterRss(): number {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  if (!line) throw new Error('no VmHWM in /proc/self/status');
  return Number(line.split(/\s+/)[1]) * 1024;
}

/** One child: a fresh process and a fresh database for one size. */
async function measure(lines: number): Promise<{ ms: number; peak: number }> {
  const db = DB === 'postgres' ? await createPostgresDatabase() : await createSqliteDatabase();
  if (typeof db === 'string') throw new Error(db);
  try {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'bench/batch-intake.bench.ts', '--child', String(lines), db.location],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    return JSON.parse(out);
  } finally {
    await db.drop();
  }
}

if (CHILD >= 0) {
  await intake(Number(process.argv[CHILD + 1]), process.argv[CHILD + 2]);
} else {
  const rss: number[] = [];
  const perLine: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [SMALL, LINES] : [LINES, SMALL];
    const got = new Map<number, { ms: number; peak: number }>();
    for (const n of order) got.set(n, await measure(n));
    const small = got.get(SMALL) as { ms: number; peak: number };
    const large = got.get(LINES) as { ms: number; peak: number };
    rss.push(large.peak / small.peak);
    perLine.push(large.ms / LINES / (small.ms / SMALL));
    console.log(
      `round ${round + 1}: ${SMALL} lines ${(small.ms / SMALL).toFixed(3)} ms/line, peak RSS ${(small.peak / 2 ** 20).toFixed(1)} MB; ` +
        `${LINES} lines ${(large.ms / LINES).toFixed(3)} ms/line, peak RSS ${(large.peak / 2 ** 20).toFixed(1)} MB (${load()})`,
    );
  }
  console.log(`batch intake (${DB}): peak RSS ${LINES} ÷ ${SMALL} lines = ${median(rss).toFixed(3)} (aim ≤ 1.10)`);
  console.log(
    `batch intake (${DB}): time per line ${LINES} ÷ ${SMALL} lines = ${median(perLine).toFixed(3)} (aim ≤ 1.20)`,
  );
}
