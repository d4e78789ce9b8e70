import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestService, type TestService } from './support/service.ts';
import { makeImage } from './support/images.ts';
import { probeBytes } from './support/probe-bytes.ts';

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, 'support', 'openai-videos.py');

/** The version of the openai Python package, or why it cannot be imported. */
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

// The real `openai` Python SDK, unmodified, through every call of `client.videos`
// (support/openai-videos.py): it sends JSON unless a file is attached.
describe('the openai Python SDK against vidgen', { skip }, () => {
  let svc: TestService;
  let dir: string;
  before(async () => {
    assert.ok(found.version, `the openai Python package is required under CI: ${found.why}`);
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-py-'));
  });
  after(async () => {
    await svc?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs create, poll, download, remix, edit, extend, list, delete and the typed errors', async () => {
    const png = join(dir, 'frame.png');
    await writeFile(png, await makeImage(720, 1280, 'png'));
    const key = await svc.createKey('openai-python');
    const { stdout } = await run('python3', [SCRIPT, svc.url, key, png], { maxBuffer: 64 * 1024 * 1024 });
    const seen = JSON.parse(stdout);

    assert.equal(seen.first.status, 'completed', JSON.stringify(seen.first));
    assert.match(seen.first.id, /^video_[0-9a-f]{32}$/);
    assert.deepEqual([seen.first.seconds, seen.first.size, seen.first.progress], ['4', '1280x720', 100]);
    assert.equal(seen.with_file.status, 'completed', JSON.stringify(seen.with_file));
    assert.equal(seen.with_file.size, '720x1280');
    assert.equal(seen.video.type, 'video/mp4');
    const probe = await probeBytes(Buffer.from(seen.video.hex, 'hex'));
    assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', 1280, 720]);
    assert.equal(Math.round(probe.durationSeconds), 4);
    assert.equal(seen.thumbnail.type, 'image/webp');
    assert.equal(seen.spritesheet.type, 'image/jpeg');
    assert.ok(seen.thumbnail.size > 0 && seen.spritesheet.size > 0);

    assert.equal(seen.remix.status, 'completed', JSON.stringify(seen.remix));
    assert.equal(seen.remix.remixed_from_video_id, seen.first.id);
    assert.equal(seen.edit.status, 'completed', JSON.stringify(seen.edit));
    assert.equal(seen.extend.status, 'completed', JSON.stringify(seen.extend));
    assert.equal(seen.extend.seconds, '8');
    assert.equal(seen.failed.status, 'failed');
    assert.equal(seen.failed.error.code, 'edit_not_understood');
    assert.ok(seen.failed.error.message.length > 0);

    // Six videos: auto-pagination walks them all, two at a time, either way round.
    assert.equal(seen.desc.length, 6);
    assert.deepEqual(seen.asc, [...seen.desc].reverse());

    assert.deepEqual(seen.deleted, { id: seen.first.id, object: 'video.deleted', deleted: true });
    assert.deepEqual(seen.after_delete, { class: 'NotFoundError', status: 404, param: null });
    assert.deepEqual(seen.bad_seconds, { class: 'BadRequestError', status: 400, param: 'seconds' });
    assert.deepEqual(seen.bad_size, { class: 'BadRequestError', status: 400, param: 'size' });
    assert.equal(seen.wrong_key.class, 'AuthenticationError');
    assert.equal(seen.unknown.class, 'NotFoundError');
  });
});
