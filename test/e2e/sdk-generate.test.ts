import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  NodeVidgenClient,
  BadRequestError,
  AuthenticationError,
  NotFoundError,
  TaskFailedError,
  familyAImage,
  type TaskView,
} from '../../packages/client/src/node/index.ts';
import { startTestService, type TestService } from './support/service.ts';
import { makeImage, startImageServer } from './support/images.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';

const { ffprobe } = resolveFfmpegBinaries({});

// The SDK against a real server: submit, wait, download and check, for both families.
describe('SDK journey', () => {
  let svc: TestService;
  let images: Awaited<ReturnType<typeof startImageServer>>;
  let dir: string;
  let client: NodeVidgenClient;
  before(async () => {
    svc = await startTestService();
    images = await startImageServer();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-sdk-'));
    client = new NodeVidgenClient({
      baseURL: svc.url,
      apiKey: await svc.createKey('sdk'),
      journalDir: join(dir, 'journal'),
    });
  });
  after(async () => {
    await svc.close();
    await images.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('family B: text-to-video, waited for and downloaded with every check', async () => {
    const created = await client.videoGenerations.create({
      model: 'video-v1-5s',
      prompt: 'sunset over the ocean, pan left',
      ratio: '9:16',
    });
    assert.equal(created.status, 'queued');
    const views: TaskView[] = [];
    const task = await client.videoGenerations.wait(created.task_id, {
      intervalMs: 250,
      maxWaitMs: 120_000,
      onProgress: (v) => views.push(v),
    });
    assert.equal(task.status, 'SUCCESS');
    assert.ok(views.every((v) => ['queued', 'IN_PROGRESS', 'SUCCESS'].includes(v.status)));
    const saved = await client.download({ family: 'B', task }, { path: join(dir, 'b.mp4') });
    const probe = await probeVideo(ffprobe, saved.path);
    assert.equal(probe.codec, 'h264');
    assert.deepEqual([probe.width, probe.height], [720, 1280]);
    assert.ok(Math.abs(probe.durationSeconds - 5) < 0.1);
    const [entry] = (await client.journal!.list()).filter((e) => e.taskId === created.task_id);
    assert.equal(entry.state, 'downloaded');
    assert.equal(entry.downloadedTo, saved.path);
  });

  it('family A: first frame by URL and by uploaded file, downloaded from the signed link', async () => {
    const byUrl = await client.videos.generate({
      model: 'vx-imagine-video-1.5-720p',
      prompt: 'slow zoom in',
      image: { url: `${images.url}/photo.png` },
      duration: 1,
    });
    const framePath = join(dir, 'frame.jpg');
    await writeFile(framePath, await makeImage(640, 480, 'jpeg'));
    const image = await familyAImage(client, framePath);
    assert.ok(image.file_id, 'a local file is uploaded and passed by id');
    const byFile = await client.videos.generate({
      model: 'vx-imagine-video-1.5-720p',
      prompt: 'pan right',
      image,
      duration: 1,
      aspect_ratio: '1:1',
    });
    for (const [id, size] of [
      [byUrl.request_id, [1280, 720]],
      [byFile.request_id, [720, 720]],
    ] as const) {
      const task = await client.videos.wait(id, { intervalMs: 250, maxWaitMs: 120_000 });
      assert.equal(task.status, 'done');
      assert.match(task.video!.url, /sig=/);
      const saved = await client.download({ family: 'A', task }, { path: join(dir, `a-${id}.mp4`), timeoutMs: 30_000 });
      const probe = await probeVideo(ffprobe, saved.path);
      assert.deepEqual([probe.width, probe.height], size);
      assert.ok(Math.abs(probe.durationSeconds - 1) < 0.1);
    }
    assert.deepEqual(
      (await readdir(dir)).filter((n) => n.includes('vidgen-part')),
      [],
    );
  });

  it('a failed task raises TaskFailedError with the server’s reason', async () => {
    const created = await client.videoGenerations.create({
      model: 'video-v1-5s',
      prompt: 'p',
      image: `${images.url}/missing.png`,
    });
    const err = await client.videoGenerations.wait(created.task_id, { intervalMs: 250 }).catch((e) => e);
    assert.ok(err instanceof TaskFailedError, String(err));
    assert.equal(err.code, 'image_unreachable');
    const [entry] = (await client.journal!.list()).filter((e) => e.taskId === created.task_id);
    assert.equal(entry.state, 'failed');
  });

  it('maps the server’s refusals to typed errors with field and request id', async () => {
    const bad = await client.videoGenerations
      .create({ model: 'video-v1-5s', prompt: 'p', ratio: '4:3' })
      .catch((e) => e);
    assert.ok(bad instanceof BadRequestError);
    assert.equal(bad.param, 'ratio');
    assert.equal(bad.code, 'unsupported_aspect_ratio');
    assert.match(bad.requestId ?? '', /^req/);
    const missing = await client.videos.retrieve('no-such-task').catch((e) => e);
    assert.ok(missing instanceof NotFoundError);
    const stranger = new NodeVidgenClient({ baseURL: svc.url, apiKey: 'not-a-key' });
    await assert.rejects(stranger.models.list(), AuthenticationError);
    const models = await client.models.list();
    assert.ok(models.data.some((m) => m.id === 'video-v1-5s' && m.family === 'B'));
    // The 1.5 generation models must not be used for edits (spec 2.1); the server says why.
    const edit = await client.videos.edits
      .create({ model: 'vx-imagine-video-1.5-720p', prompt: 'p', video: { url: 'https://example.com/v.mp4' } })
      .catch((e) => e);
    assert.ok(edit instanceof BadRequestError);
    assert.equal(edit.code, 'model_not_supported');
  });

  it('uploads, reads and deletes files', async () => {
    const png = await makeImage(64, 48, 'png');
    const file = await client.files.create({ file: png, filename: 'tiny.png' });
    assert.equal(file.object, 'file');
    assert.equal(file.mime_type, 'image/png');
    assert.equal((await client.files.retrieve(file.id)).bytes, png.length);
    assert.deepEqual(await client.files.delete(file.id), { id: file.id, object: 'file', deleted: true });
    await assert.rejects(client.files.retrieve(file.id), NotFoundError);
  });
});
