import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PRICED_MODELS, startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, 'support', 'openai-batches.py');

async function pythonOpenAi(): Promise<{ version?: string; why?: string }> {
  try {
    const { stdout } = await run('python3', ['-c', 'import openai; print(openai.__version__)']);
    return { version: stdout.trim() };
  } catch (err) {
    return { why: (err as Error).message.split('\n').slice(-2).join(' ') };
  }
}

const found = await pythonOpenAi();
// CI installs it (.ci/run): there a missing package is a failure, elsewhere a skip that says why.
const skip =
  found.version === undefined && process.env.CI !== 'true'
    ? `the openai Python package is not installed (python3 -m pip install openai==3.22.1): ${found.why}`
    : false;

const line = (customId: string, body: Record<string, unknown>) =>
  JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/videos', body });

// The real `openai` Python SDK, unmodified (support/openai-batches.py): files.create(purpose="batch"),
// batches.create / retrieve / list / cancel, files.content of the output and error files.
describe('batches through the openai Python SDK', { skip }, () => {
  let svc: EconomicsService;
  before(async () => {
    assert.ok(found.version, `the openai Python package is required under CI: ${found.why}`);
    svc = await startEconomicsService(undefined, {}, PRICED_MODELS);
  });
  after(() => svc?.close());

  it('runs a batch, reads its files, cancels another and lists them', async () => {
    const key = await svc.account('batch-python', { credits_usd_ticks: 100 * TICKS_PER_SECOND });
    const lines = [
      line('kite', { model: 'tiny-o', prompt: 'a kite' }),
      line('bad-seconds', { model: 'tiny-o', prompt: 'a boat', seconds: 3 }),
    ].join('\n');
    const { stdout } = await run('python3', [SCRIPT, svc.url, key, lines], { maxBuffer: 16 * 1024 * 1024 });
    const seen = JSON.parse(stdout);
    assert.equal(seen.file.purpose, 'batch');
    assert.equal(seen.created.status, 'validating');
    assert.deepEqual(seen.created.metadata, { run: 'python' });
    assert.equal(seen.done.status, 'completed', JSON.stringify(seen.done));
    assert.deepEqual(seen.done.request_counts, { total: 2, completed: 1, failed: 1 });
    const [output] = seen.output.trim().split('\n').map(JSON.parse);
    assert.deepEqual(
      [output.custom_id, output.response.status_code, output.response.body.status],
      ['kite', 200, 'completed'],
    );
    const [refused] = seen.errors.trim().split('\n').map(JSON.parse);
    assert.equal(refused.custom_id, 'bad-seconds');
    assert.equal(refused.response.status_code, 400);
    assert.equal(refused.response.body.error.param, 'seconds');
    assert.equal(seen.cancelling.status, 'cancelling');
    assert.equal(seen.cancelled.status, 'cancelled');
    assert.deepEqual(seen.listed, [seen.cancelled.id, seen.done.id]);
    assert.deepEqual(seen.missing, { status: 404, code: 'batch_not_found' });
    assert.deepEqual((await svc.verify()).problems, []);
  });
});
