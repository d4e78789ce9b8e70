import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Task, TaskStatus } from '../../src/domain/task.ts';
import { openRouterVideoIds, toOpenRouterVideo } from '../../src/api/dialects/openrouter-videos.ts';
import { openRouterShape } from '../../src/api/dialects/openrouter-shape.ts';

// The answers `@openrouter/ai-sdk-provider` 3.1.0 reads (dist/index.js, `pollUntilComplete`):
// `completed` ends its polling; `failed`, `cancelled` and `expired` raise `error`, which its schema
// takes only as a string or absent (null would fail the parse and hide the reason).
const task = (status: TaskStatus, extra: Partial<Task> = {}): Task => ({
  id: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  accountId: 'acct',
  family: 'R',
  kind: 'generate',
  model: 'grok-imagine-video-1.5',
  backend: 'renderer',
  status,
  progress: 0,
  params: { prompt: 'p', duration: 2, aspectRatio: '16:9', width: 854, height: 480, fps: 24 },
  error: null,
  result: null,
  attempts: 0,
  createdAt: 1_700_000_000_000,
  startedAt: null,
  finishedAt: null,
  expiresAt: null,
  idempotencyKey: null,
  revision: 1,
  serviceTier: 'default',
  batchId: null,
  ...extra,
});

const links = { signedContentUrl: () => 'http://127.0.0.1:1/v1/videos/x/content?sig=1' };

describe("OpenRouter's shape: each state as the provider reads it", () => {
  it('maps every state to a word the provider understands, with error a string or absent', () => {
    const cases: Array<[TaskStatus, Partial<Task>, string, boolean]> = [
      ['queued', {}, 'pending', false],
      ['running', { progress: 40 }, 'in_progress', false],
      ['succeeded', {}, 'completed', false],
      ['failed', { error: { code: 'render_failed', message: 'ffmpeg stopped' } }, 'failed', true],
      ['failed', {}, 'failed', true],
      ['canceled', { error: { code: 'canceled', message: 'Canceled by the caller.' } }, 'cancelled', true],
      ['expired', {}, 'expired', true],
    ];
    for (const [status, extra, word, hasError] of cases) {
      const job = toOpenRouterVideo(task(status, extra), links);
      assert.equal(job.status, word, status);
      assert.equal(typeof job.error === 'string', hasError, `${status}: ${JSON.stringify(job.error)}`);
      if (!hasError) assert.equal('error' in job, false, `${status}: no error key at all`);
      assert.equal(job.unsigned_urls !== undefined, status === 'succeeded', status);
      assert.equal(job.polling_url, `/v1/videos/${job.id}`);
    }
    assert.equal(toOpenRouterVideo(task('failed', { error: { code: 'x', message: 'why' } })).error, 'why');
  });

  it('usage: the cost in USD as a number beside the exact ticks', () => {
    const job = toOpenRouterVideo(task('succeeded', { usage: { costUsdTicks: 12_345_678_901 } }), links);
    assert.deepEqual(job.usage, { cost: 1.2345678901, cost_in_usd_ticks: 12_345_678_901 });
  });

  it('ids: job- and the UUID as 32 hex digits, both ways; anything else names no job', () => {
    const id = openRouterVideoIds.fromTask(task('queued').id);
    assert.equal(id, 'job-0193a1b2c3d47e5f8a9b0c1d2e3f4a5b');
    assert.equal(openRouterVideoIds.toTask(id), task('queued').id);
    assert.equal(openRouterVideoIds.toTask('video_0193a1b2c3d47e5f8a9b0c1d2e3f4a5b'), undefined);
  });

  it('size, aspect_ratio and resolution: agreeing values, and a 400 naming the one that disagrees', () => {
    assert.deepEqual(openRouterShape({ size: '854x480' }), { aspectRatio: '16:9', resolution: '480p' });
    assert.deepEqual(openRouterShape({ size: '720x1280', aspect_ratio: '9:16' }), {
      aspectRatio: '9:16',
      resolution: '720p',
    });
    assert.deepEqual(openRouterShape({ aspect_ratio: '1:1', resolution: '720p' }), {
      aspectRatio: '1:1',
      resolution: '720p',
    });
    assert.throws(
      () => openRouterShape({ size: '1280x720', aspect_ratio: '1:1' }),
      (err: { param?: string; code?: string }) => err.param === 'aspect_ratio' && err.code === 'invalid_aspect_ratio',
    );
    assert.throws(
      () => openRouterShape({ size: '1280x720', resolution: '1080p' }),
      (err: { param?: string }) => err.param === 'resolution',
    );
    assert.throws(
      () => openRouterShape({ size: 'big' }),
      (err: { param?: string }) => err.param === 'size',
    );
  });
});
