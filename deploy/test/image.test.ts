import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeVidgenClient } from '../../packages/client/src/node/index.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';
import { IMAGE, answers200, freePort, missingPodman, must, podman, removeContainers, run, waitFor } from './podman.ts';

const { ffprobe } = resolveFfmpegBinaries({});
const DEPLOY = new URL('..', import.meta.url).pathname;

// The image as `docker run` meets it, and the single-container file (deploy/compose.single.yaml):
// non-root, lean, ready quickly, the operator commands, a real video, SIGTERM handled as outside.
describe('the vidgen image', () => {
  let skip: string | undefined;
  let dir: string;
  const project = `vidgen-single-${process.pid}`;
  before(async () => {
    skip = await missingPodman();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-image-'));
  });
  after(async () => {
    if (!skip) {
      await removeContainers(project);
      await run('podman-compose', ['-p', project, '-f', join(dir, 'compose.single.yaml'), 'down', '-v']);
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('runs as a non-root user, with a health check, and says its size', async (t) => {
    if (skip) return t.skip(skip);
    const [user, size, health] = (
      await podman('image', 'inspect', IMAGE, '--format', '{{.Config.User}}|{{.Size}}|{{json .Config.Healthcheck}}')
    )
      .trim()
      .split('|');
    assert.equal(user, 'node');
    assert.match(health, /\/healthz/);
    t.diagnostic(`image ${IMAGE}: ${(Number(size) / 1e6).toFixed(0)} MB`);
    const id = (await podman('run', '--rm', '--entrypoint', 'id', IMAGE)).trim();
    assert.match(id, /^uid=1000\(node\) gid=1000\(node\)/);
    assert.equal((await podman('run', '--rm', IMAGE, '--version')).trim(), 'vidgen-server 0.1.0');
  });

  it('migrate and keys create run in the image on its data volume', async (t) => {
    if (skip) return t.skip(skip);
    const volume = `${project}_cli`;
    try {
      const migrated = await podman('run', '--rm', '-v', `${volume}:/data`, IMAGE, 'migrate');
      assert.match(migrated, /^migrate: \/data\/vidgen\.db: applied \d+: 0001_initial/);
      assert.match(await podman('run', '--rm', '-v', `${volume}:/data`, IMAGE, 'migrate'), /already up to date/);
      const key = (await podman('run', '--rm', '-v', `${volume}:/data`, IMAGE, 'keys', 'create', '--account', 'a'))
        .trim()
        .split('\n')
        .at(-1)!;
      assert.match(key, /^\S{20,}$/);
      const listed = await podman('run', '--rm', '-v', `${volume}:/data`, IMAGE, 'keys', 'list');
      assert.match(listed, /\ba\b/);
      assert.doesNotMatch(listed, new RegExp(key), 'a key secret is shown once');
    } finally {
      await run('podman', ['volume', 'rm', '-f', volume]);
    }
  });

  it('the single-container file serves a verified MP4 and drains on SIGTERM', { timeout: 600_000 }, async (t) => {
    if (skip) return t.skip(skip);
    const port = await freePort();
    await copyFile(join(DEPLOY, 'compose.single.yaml'), join(dir, 'compose.single.yaml'));
    const url = `http://127.0.0.1:${port}`;
    await writeFile(join(dir, '.env'), `VIDGEN_IMAGE=${IMAGE}\nVIDGEN_HTTP_PORT=${port}\nVIDGEN_PUBLIC_URL=${url}\n`);
    const compose = (...args: string[]) =>
      must('podman-compose', ['-p', project, '-f', join(dir, 'compose.single.yaml'), ...args]);
    const started = Date.now();
    await compose('up', '-d');
    // The time is printed, not asserted: a loaded CI machine may take longer than a quiet one.
    await waitFor('/readyz of the single container', 180_000, answers200(`${url}/readyz`));
    t.diagnostic(`single container: first 200 from /readyz ${((Date.now() - started) / 1000).toFixed(1)} s after up`);
    const container = `${project}_vidgen_1`;
    await waitFor('a healthy health check', 60_000, async () =>
      (await run('podman', ['healthcheck', 'run', container])).code === 0 ? true : undefined,
    );

    const key = (await podman('exec', container, 'vidgen-server', 'keys', 'create', '--account', 'single'))
      .trim()
      .split('\n')
      .at(-1)!;
    const client = new NodeVidgenClient({ baseURL: url, apiKey: key, maxRetries: 5 });
    const first = await client.videoGenerations.create({ model: 'video-v1-5s', prompt: 'single container' });
    const done = await client.videoGenerations.wait(first.task_id, { intervalMs: 500, maxWaitMs: 300_000 });
    assert.equal(done.status, 'SUCCESS');
    const saved = await client.download({ family: 'B', task: done }, { path: join(dir, 'single.mp4') });
    const probe = await probeVideo(ffprobe, saved.path);
    assert.equal(probe.codec, 'h264');
    assert.ok(Math.abs(probe.durationSeconds - 5) < 0.1, `duration ${probe.durationSeconds}`);

    // SIGTERM while a render runs: the process lets it finish, then exits 0 (podman stop waits for that).
    const second = await client.videoGenerations.create({ model: 'video-v1-5s', prompt: 'drain me' });
    await waitFor('the second task to start', 120_000, async () =>
      (await client.videoGenerations.retrieve(second.task_id)).status === 'IN_PROGRESS' ? true : undefined,
    );
    await podman('stop', '-t', '120', container);
    const exit = (await podman('inspect', container, '--format', '{{.State.ExitCode}}')).trim();
    assert.equal(exit, '0');
    // Logs before the restart: the signal (stderr), then the task finished by this process, never handed back.
    const { stdout, stderr } = await run('podman', ['logs', container]);
    assert.match(stderr, /SIGTERM: shutting down/);
    const finished = stdout.split('\n').filter((line) => line.includes(second.task_id));
    assert.ok(
      finished.some((line) => line.includes('"task succeeded"')),
      'the task succeeded in the stopped process',
    );
    assert.ok(!finished.some((line) => line.includes('handed back')), 'the task was not handed back');
    await podman('start', container);
    await waitFor('/readyz after the restart', 60_000, answers200(`${url}/readyz`));
    const after = await client.videoGenerations.retrieve(second.task_id);
    assert.equal(after.status, 'SUCCESS', 'the task finished inside the grace period, before the process exited');
  });
});
