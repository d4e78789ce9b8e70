import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api, pollUntil, type Answer } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { makeImage } from './support/images.ts';

/**
 * Root ignores permission bits, so a chmod would not stop this server: the data dir, and in it
 * the blob and work directories, live on their own small tmpfs mounts instead, remounted
 * read-only (EROFS stops root too) or filled up. (The database's mount cannot be remounted
 * read-only while SQLite holds it open for writing: the kernel answers EBUSY.) Needs root and
 * mount(8); elsewhere the file skips and says why.
 */
function mountTmpfs(dir: string, sizeMb: number): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `a private tmpfs cannot be mounted here (${String((err as Error).message).split('\n')[0]}); disk fault tests need root`;
  }
}
const remount = (dir: string, mode: 'ro' | 'rw') => execFileSync('mount', ['-o', `remount,${mode}`, dir]);

describe('full and read-only disks', () => {
  let mnt: string;
  let skip: string | undefined;
  let server: ServerProcess | undefined;
  let key: string;
  let env: Record<string, string>;
  const figures: string[] = [];

  before(async () => {
    mnt = await mkdtemp(join(tmpdir(), 'vidgen-disk-'));
    skip = mountTmpfs(mnt, 64);
    if (skip) return;
    await mkdir(join(mnt, 'data', 'blobs'), { recursive: true });
    await mkdir(join(mnt, 'data', 'work'), { recursive: true });
    skip = mountTmpfs(join(mnt, 'data', 'blobs'), 24) ?? mountTmpfs(join(mnt, 'data', 'work'), 24);
    if (skip) return;
    env = {
      VIDGEN_DATA_DIR: join(mnt, 'data'),
      VIDGEN_SIGNING_SECRET: 'disk',
      VIDGEN_POLL_MS: '100',
      VIDGEN_LEASE_SECONDS: '4',
      VIDGEN_HEARTBEAT_SECONDS: '1',
    };
    key = (await runServerCommand(['keys', 'create', '--account', 'disk'], env)).stdout.trim();
    server = await spawnServer(env);
  });
  after(async () => {
    await server?.stop();
    for (const dir of [join(mnt, 'data', 'blobs'), join(mnt, 'data', 'work'), mnt]) {
      try {
        execFileSync('umount', [dir], { stdio: 'pipe' });
      } catch {}
    }
    await rmdir(mnt).catch(() => undefined);
  });

  /** 503 with Retry-After and the envelope: what every refusal during a storage fault must be. */
  const assertUnavailable = (a: Answer, what: string) => {
    figures.push(`${what}: ${a.status} ${a.body?.error?.code ?? ''}`);
    assert.equal(a.status, 503, `${what}: ${JSON.stringify(a.body)}`);
    assert.ok(a.headers.get('retry-after'), `${what}: Retry-After`);
    assert.equal(a.body.error.code, 'service_unavailable', what);
    assert.ok(a.headers.get('x-request-id'), what);
  };
  const readyz = async () => (await fetch(`${server!.url}/readyz`)).status;
  const upload = async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await makeImage(64, 48))], { type: 'image/png' }), 'a.png');
    const res = await fetch(`${server!.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    return { status: res.status, headers: res.headers, body: await res.json() } as Answer;
  };
  const untilReady = async () => {
    const deadline = Date.now() + 30_000;
    while ((await readyz()) !== 200) {
      assert.ok(Date.now() < deadline, 'ready again within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const finishes = async (client: ReturnType<typeof api>, id: string) => {
    const done = await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => ['SUCCESS', 'FAILURE'].includes(a.body?.status),
    );
    assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
    const { probe } = await downloadAndProbe(`${server!.url}/v1/videos/${id}/content`, {
      authorization: `Bearer ${key}`,
    });
    assert.equal(probe.codec, 'h264');
  };

  it('read-only blob and work directories: not ready, uploads 503, submitted work waits and runs when writable again', async (t) => {
    if (skip) return t.skip(skip);
    const client = api(server!.url, key);
    const dirs = [join(mnt, 'data', 'blobs'), join(mnt, 'data', 'work')];
    for (const dir of dirs) remount(dir, 'ro');
    let accepted: string;
    try {
      assert.equal(await readyz(), 503, 'not ready while the disk is read-only');
      figures.push('read-only readyz: 503');
      assertUnavailable(await upload(), 'read-only upload');
      const image = `data:image/png;base64,${(await makeImage(64, 48)).toString('base64')}`;
      assertUnavailable(
        await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'ro image', image }),
        'read-only image submit',
      );
      // The database is writable: a plain submit is accepted; its attempts meet the read-only work root and hand it back.
      const plain = await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'ro plain' });
      figures.push(`read-only plain submit: ${plain.status}`);
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      accepted = plain.body.task_id;
      await new Promise((r) => setTimeout(r, 3000));
      const meanwhile = await client.get(`/v1/video/generations/${accepted}`);
      assert.ok(
        ['queued', 'IN_PROGRESS'].includes(meanwhile.body.status),
        `still to do, not failed: ${JSON.stringify(meanwhile.body)}`,
      );
    } finally {
      for (const dir of dirs) remount(dir, 'rw');
    }
    await untilReady();
    await finishes(client, accepted);
    const image = `data:image/png;base64,${(await makeImage(64, 48)).toString('base64')}`;
    const retried = await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'ro image', image });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal((await upload()).status, 200);
    assert.equal(server!.child.exitCode, null);
  });

  it('full disk: not ready, submits and uploads 503, everything resumes when space returns', async (t) => {
    if (skip) return t.skip(skip);
    const client = api(server!.url, key);
    const fillers = [join(mnt, 'filler'), join(mnt, 'data', 'blobs', 'filler'), join(mnt, 'data', 'work', 'filler')];
    for (const filler of fillers) await fill(filler);
    let queued: string | undefined;
    try {
      assert.equal(await readyz(), 503, 'not ready while the disk is full');
      figures.push('full readyz: 503');
      // SQLite may still fit a row in WAL space it already has: accepted or 503, never a 500.
      const submit = await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'full' });
      figures.push(`full-disk submit: ${submit.status} ${submit.body?.error?.code ?? ''}`);
      if (submit.status === 200) queued = submit.body.task_id;
      else assertUnavailable(submit, 'full-disk submit');
      figures.pop();
      assertUnavailable(await upload(), 'full-disk upload');
    } finally {
      for (const filler of fillers) await rm(filler, { force: true });
    }
    await untilReady();
    const created = await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'space again' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    await finishes(client, created.body.task_id);
    if (queued) await finishes(client, queued);
    assert.equal(server!.child.exitCode, null);
    t.diagnostic(figures.join('; '));
  });

  it('a restart after kill -9 removes the work directories the dead process left', async (t) => {
    if (skip) return t.skip(skip);
    const client = api(server!.url, key);
    const id = (await client.post('/v1/video/generations', { model: 'video-v1-15s', prompt: 'killed' })).body.task_id;
    await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => a.body.status === 'IN_PROGRESS',
    );
    const workRoot = join(env.VIDGEN_DATA_DIR, 'work');
    // The attempt makes its work directory when the renderer first writes, a moment after it starts.
    for (let i = 0; (await readdir(workRoot)).length === 0; i++) {
      assert.ok(i < 600, 'an attempt is using a work directory');
      await new Promise((r) => setTimeout(r, 100));
    }
    await server!.stop('SIGKILL');
    const left = await readdir(workRoot);
    assert.ok(left.length > 0, 'kill -9 left it behind');
    // A directory a live process on this host owns is kept.
    const live = `${(await import('node:os')).hostname()}~${process.pid}~live~x`;
    await writeFile(join(workRoot, live), '');
    server = await spawnServer(env);
    const after = await readdir(workRoot);
    assert.ok(
      left.every((name) => !after.includes(name)),
      `swept: ${left.join(', ')}`,
    );
    assert.ok(after.includes(live), "the live owner's directory stays");
    await rm(join(workRoot, live), { force: true });
    await finishes(api(server.url, key), id);
  });
});

/** Writes until the file system says ENOSPC. */
async function fill(path: string): Promise<void> {
  const chunk = Buffer.alloc(1024 * 1024, 1);
  const { open } = await import('node:fs/promises');
  const file = await open(path, 'w');
  try {
    for (;;) await file.write(chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    await file.close().catch(() => undefined);
  }
  // The last partial megabyte too.
  const small = await open(path, 'a');
  try {
    for (;;) await small.write(Buffer.alloc(4096, 1));
  } catch {
  } finally {
    await small.close().catch(() => undefined);
  }
}
