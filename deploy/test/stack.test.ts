import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { NodeVidgenClient, familyAImage } from '../../packages/client/src/node/index.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';
import { makeImage } from '../../test/e2e/support/images.ts';
import { IMAGE, answers200, freePort, missingPodman, must, podman, removeContainers, run, waitFor } from './podman.ts';

const { ffprobe } = resolveFfmpegBinaries({});
const DEPLOY = new URL('..', import.meta.url).pathname;
// The stand-ins deploy/ci/build-base-images.sh makes where no registry can be reached.
const STAND_INS = {
  VIDGEN_POSTGRES_IMAGE: process.env.VIDGEN_POSTGRES_IMAGE ?? 'localhost/vidgen-ci/postgres:15-bookworm',
  VIDGEN_S3_SERVER_IMAGE: process.env.VIDGEN_S3_SERVER_IMAGE ?? 'localhost/vidgen-ci/s3rver:3.7.1',
  VIDGEN_PROXY_IMAGE: process.env.VIDGEN_PROXY_IMAGE ?? 'localhost/vidgen-ci/caddy:2.6-bookworm',
};

// deploy/compose.yaml from a .env, as an operator runs it: 2 API processes behind the proxy, 2 workers,
// PostgreSQL and an S3 server. Everything goes through the published ports, as a client would.
describe('the compose stack (deploy/compose.yaml)', () => {
  let skip: string | undefined;
  let dir: string;
  let url: string;
  let s3Url: string;
  let client: NodeVidgenClient;
  let key: string;
  const project = `vidgen-stack-${process.pid}`;
  const password = randomBytes(12).toString('hex');
  const compose = (...args: string[]) =>
    must('podman-compose', ['-p', project, '-f', join(dir, 'compose.yaml'), ...args]);
  const containers = async (service: string) =>
    (
      await podman(
        'ps',
        '-a',
        '--filter',
        `label=io.podman.compose.project=${project}`,
        '--filter',
        `label=com.docker.compose.service=${service}`,
        '--format',
        '{{.Names}}',
      )
    )
      .trim()
      .split('\n')
      .filter(Boolean)
      .sort();
  const psql = async (query: string) =>
    (await podman('exec', `${project}_postgres_1`, 'psql', '-U', 'vidgen', '-d', 'vidgen', '-Atc', query)).trim();

  before(async () => {
    skip = await missingPodman();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-stack-'));
    if (skip) return;
    for (const file of ['compose.yaml', 'Caddyfile']) await copyFile(join(DEPLOY, file), join(dir, file));
    const [port, s3Port] = [await freePort(), await freePort()];
    url = `http://127.0.0.1:${port}`;
    s3Url = `http://127.0.0.1:${s3Port}`;
    const env = {
      ...STAND_INS,
      VIDGEN_IMAGE: IMAGE,
      VIDGEN_SIGNING_SECRET: randomBytes(32).toString('hex'),
      VIDGEN_ADMIN_TOKEN: randomBytes(32).toString('hex'),
      POSTGRES_PASSWORD: password,
      // s3rver knows one key pair only.
      S3_ACCESS_KEY: 'S3RVER',
      S3_SECRET_KEY: 'S3RVER',
      VIDGEN_PUBLIC_URL: url,
      VIDGEN_S3_PUBLIC_URL: s3Url,
      VIDGEN_HTTP_PORT: String(port),
      VIDGEN_S3_PORT: String(s3Port),
      // A render on a loaded CI machine can take longer than the default 30 s drain.
      VIDGEN_SHUTDOWN_GRACE_SECONDS: '100',
    };
    await writeFile(
      join(dir, '.env'),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
    );
  });
  after(async () => {
    if (!skip && dir) {
      await removeContainers(project);
      await run('podman-compose', ['-p', project, '-f', join(dir, 'compose.yaml'), 'down', '-v']);
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses to start without the required secrets', async (t) => {
    if (skip) return t.skip(skip);
    const bare = await mkdtemp(join(tmpdir(), 'vidgen-bare-'));
    try {
      await copyFile(join(DEPLOY, 'compose.yaml'), join(bare, 'compose.yaml'));
      // No .env beside it, and none of the variables in the environment.
      const res = await run('podman-compose', ['-p', `${project}-bare`, '-f', join(bare, 'compose.yaml'), 'up', '-d']);
      assert.notEqual(res.code, 0);
      assert.match(
        res.stderr + res.stdout,
        /set (POSTGRES_PASSWORD|VIDGEN_SIGNING_SECRET|VIDGEN_ADMIN_TOKEN|S3_ACCESS_KEY)/,
      );
      const created = await podman('ps', '-a', '--filter', `label=io.podman.compose.project=${project}-bare`, '-q');
      assert.equal(created.trim(), '', 'no container was created');
    } finally {
      await run('podman-compose', ['-p', `${project}-bare`, '-f', join(bare, 'compose.yaml'), 'down']);
      await rm(bare, { recursive: true, force: true });
    }
  });

  it('comes up from .env: 2 API, 2 workers, PostgreSQL, S3, the proxy', { timeout: 600_000 }, async (t) => {
    if (skip) return t.skip(skip);
    const started = Date.now();
    await compose('up', '-d');
    await waitFor('/readyz through the proxy', 300_000, answers200(`${url}/readyz`));
    t.diagnostic(
      `stack: first 200 from /readyz through the proxy ${((Date.now() - started) / 1000).toFixed(1)} s after up`,
    );
    assert.equal((await containers('api')).length, 2);
    assert.equal((await containers('worker')).length, 2);
    for (const name of [...(await containers('api')), ...(await containers('worker'))]) {
      await waitFor(`${name} healthy`, 120_000, async () =>
        (await run('podman', ['healthcheck', 'run', name])).code === 0 ? true : undefined,
      );
    }
    key = (await podman('exec', `${project}_api_1`, 'vidgen-server', 'keys', 'create', '--account', 'deploy'))
      .trim()
      .split('\n')
      .at(-1)!;
    client = new NodeVidgenClient({ baseURL: url, apiKey: key, maxRetries: 5, journalDir: join(dir, 'journal') });
  });

  it('family A and family B tasks end as verified MP4s, downloaded from the bucket by the presigned redirect', {
    timeout: 600_000,
  }, async (t) => {
    if (skip) return t.skip(skip);
    const b = await client.videoGenerations.create({ model: 'video-v1-5s', prompt: 'compose stack, family B' });
    const framePath = join(dir, 'frame.png');
    await writeFile(framePath, await makeImage(640, 360, 'png'));
    const a = await client.videos.generate({
      model: 'vx-imagine-video-1.5-720p',
      prompt: 'compose stack, family A',
      image: await familyAImage(client, framePath),
      duration: 1,
    });
    const doneB = await client.videoGenerations.wait(b.task_id, { intervalMs: 500, maxWaitMs: 300_000 });
    const doneA = await client.videos.wait(a.request_id, { intervalMs: 500, maxWaitMs: 300_000 });
    assert.equal(doneB.status, 'SUCCESS');
    assert.equal(doneA.status, 'done');
    for (const [name, target, seconds] of [
      ['b.mp4', { family: 'B' as const, task: doneB }, 5],
      ['a.mp4', { family: 'A' as const, task: doneA }, 1],
    ] as const) {
      const saved = await client.download(target, { path: join(dir, name) });
      const probe = await probeVideo(ffprobe, saved.path);
      assert.equal(probe.codec, 'h264');
      assert.ok(Math.abs(probe.durationSeconds - seconds) < 0.1, `${name}: duration ${probe.durationSeconds}`);
    }
    // The API answers the content URL with a redirect to the S3 server's public endpoint.
    const res = await fetch(`${url}/v1/videos/${b.task_id}/content`, {
      headers: { authorization: `Bearer ${key}` },
      redirect: 'manual',
    });
    assert.equal(res.status, 302);
    assert.ok(res.headers.get('location')!.startsWith(`${s3Url}/vidgen/videos/`), res.headers.get('location')!);
    const video = await fetch(res.headers.get('location')!);
    assert.equal(video.status, 200);
    assert.equal(video.headers.get('content-type'), 'video/mp4');
  });

  /** Waits for a family B task to run and returns the container of the worker that holds its lease. */
  const runningOn = async (taskId: string) => {
    const owner = await waitFor(`${taskId} running`, 120_000, async () => {
      const row = await psql(`SELECT status || ' ' || coalesce(lease_owner, '') FROM tasks WHERE id = '${taskId}'`);
      return row.startsWith('running ') ? row.split(' ')[1] : undefined;
    });
    const host = owner.split(':')[0];
    for (const name of await containers('worker')) {
      if ((await podman('inspect', name, '--format', '{{.Config.Hostname}}')).trim() === host) return name;
    }
    throw new Error(`no worker container has the host name ${host} (lease owner ${owner})`);
  };

  it('SIGTERM drains a worker: its running task finishes before the container exits 0', {
    timeout: 600_000,
  }, async (t) => {
    if (skip) return t.skip(skip);
    const task = await client.videoGenerations.create({ model: 'video-v1-5s', prompt: 'drain on SIGTERM' });
    const worker = await runningOn(task.task_id);
    await podman('stop', '-t', '120', worker);
    assert.equal((await podman('inspect', worker, '--format', '{{.State.ExitCode}}')).trim(), '0');
    assert.equal(await psql(`SELECT status || ' ' || attempts FROM tasks WHERE id = '${task.task_id}'`), 'succeeded 1');
    await podman('start', worker);
  });

  it('a worker killed with SIGKILL mid-render costs nothing: the task completes, one stored output', {
    timeout: 600_000,
  }, async (t) => {
    if (skip) return t.skip(skip);
    const task = await client.videoGenerations.create({ model: 'video-v1-10s', prompt: 'kill the worker' });
    const worker = await runningOn(task.task_id);
    await podman('kill', '-s', 'KILL', worker);
    const done = await client.videoGenerations.wait(task.task_id, { intervalMs: 1000, maxWaitMs: 300_000 });
    assert.equal(done.status, 'SUCCESS');
    assert.equal(await psql(`SELECT status || ' ' || attempts FROM tasks WHERE id = '${task.task_id}'`), 'succeeded 2');
    const saved = await client.download({ family: 'B', task: done }, { path: join(dir, 'killed.mp4') });
    assert.ok(Math.abs((await probeVideo(ffprobe, saved.path)).durationSeconds - 10) < 0.1);
    const s3 = new S3Client({
      endpoint: s3Url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket: 'vidgen', Prefix: `videos/${task.task_id.slice(0, 7)}/` }),
    );
    const videos = (listed.Contents ?? [])
      .map((o) => o.Key!)
      .filter((k) => k.startsWith(`videos/${task.task_id.slice(0, 7)}/${task.task_id}.`) && /\.\d+\.mp4$/.test(k));
    assert.equal(videos.length, 1, `stored outputs: ${videos.join(', ')}`);
    s3.destroy();
    if ((await podman('inspect', worker, '--format', '{{.State.Running}}')).trim() !== 'true')
      await podman('start', worker);
  });

  it('down then up keeps every task and video; ledger verify passes in the image', { timeout: 600_000 }, async (t) => {
    if (skip) return t.skip(skip);
    const before = await psql("SELECT count(*) || ' ' || count(result_key) FROM tasks");
    await compose('down', '-t', '60');
    await compose('up', '-d');
    await waitFor('/readyz through the proxy after up', 300_000, answers200(`${url}/readyz`));
    assert.equal(await psql("SELECT count(*) || ' ' || count(result_key) FROM tasks"), before);
    const ids = (await psql("SELECT id FROM tasks WHERE family = 'B' AND status = 'succeeded'")).split('\n');
    for (const id of ids) {
      const task = await client.videoGenerations.retrieve(id);
      const saved = await client.download({ family: 'B', task }, { path: join(dir, `again-${id}.mp4`) });
      assert.equal((await probeVideo(ffprobe, saved.path)).codec, 'h264');
    }
    const verified = await run('podman', ['exec', `${project}_api_1`, 'vidgen-server', 'ledger', 'verify']);
    assert.equal(verified.code, 0, verified.stderr + verified.stdout);
    t.diagnostic(verified.stdout.trim());
  });
});
