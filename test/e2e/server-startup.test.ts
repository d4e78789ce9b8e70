import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { collectOutput, runServerCommand, SERVER_BIN } from './support/process.ts';
import { spawnInGroup } from './support/process-groups.ts';

// What a person sees when they run `vidgen-server` for the first time: the key on a line of its
// own (no JSON to read), which optional surfaces are on, a private database file, and a port clash
// that names PORT and leaves the one showing of the key for the start that works.
describe('vidgen-server start-up output', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-startup-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** Starts a server and reads its stderr until the start-up text is complete. */
  const start = async (env: Record<string, string>, { key = false } = {}) => {
    const child = spawnInGroup(process.execPath, [SERVER_BIN], {
      env: { ...process.env, PORT: '0', VIDGEN_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    const stderr: string[] = [];
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        stderr.push(line);
        if (line.startsWith('optional surfaces:') && !key) resolve();
        if (line.startsWith('Make more with')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr.join('\n')}`)));
    });
    const stop = () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    return { child, stderr, stdout: () => stdout, stop };
  };

  it('prints the first key on a line of its own, the optional surfaces, and creates the database 0600', async () => {
    const dataDir = join(dir, 'first');
    const server = await start({ VIDGEN_DATA_DIR: dataDir, VIDGEN_ADMIN_TOKEN: 'admin-secret' }, { key: true });
    try {
      const url = server.stderr.map((l) => /is listening on (\S+)/.exec(l)?.[1]).find(Boolean);
      assert.ok(url, server.stderr.join('\n'));
      const keyLine = server.stderr.findIndex((l) => /shown only this once/.test(l));
      assert.ok(keyLine > 0, server.stderr.join('\n'));
      const key = server.stderr[keyLine + 2].trim();
      assert.equal(server.stderr[keyLine + 1], '');
      assert.match(key, /^\S{20,}$/, 'the key alone on its line');
      const models = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(models.status, 200, 'the printed key works');
      const surfaces = server.stderr.find((l) => l.startsWith('optional surfaces:'));
      assert.match(surfaces!, /admin API on/);
      assert.match(surfaces!, /metrics on without a token \(set VIDGEN_METRICS_TOKEN\)/);
      assert.match(surfaces!, /webhooks on/);
      assert.match(surfaces!, /tracing off \(set OTEL_EXPORTER_OTLP_ENDPOINT\)/);
      assert.ok(!server.stdout().includes(key), 'the JSON log does not carry the key');
      assert.ok(!server.stderr.join('\n').includes('admin-secret'));
      for (const file of ['vidgen.db', 'vidgen.db-wal'])
        assert.equal((await stat(join(dataDir, file))).mode & 0o777, 0o600, `${file} is owner-only`);
    } finally {
      await server.stop();
    }
    const again = await start({ VIDGEN_DATA_DIR: dataDir, VIDGEN_METRICS_TOKEN: 'm' });
    try {
      assert.ok(!again.stderr.some((l) => /shown only this once/.test(l)), 'no second key');
      assert.match(
        again.stderr.find((l) => l.startsWith('optional surfaces:'))!,
        /admin API off \(set VIDGEN_ADMIN_TOKEN\)/,
      );
    } finally {
      await again.stop();
    }
  });

  it('fails on a port clash before creating a key, naming PORT', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const dataDir = join(dir, 'clash');
    try {
      const env = { ...process.env, VIDGEN_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
      const res = await collectOutput(spawnInGroup(process.execPath, [SERVER_BIN], { env, stdio: 'pipe' }));
      assert.equal(res.code, 1);
      assert.match(res.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use .*set PORT`));
      assert.doesNotMatch(res.stderr + res.stdout, /shown only this once|No API key existed/);
    } finally {
      taken.close();
    }
    const keys = await runServerCommand(['keys', 'list'], { VIDGEN_DATA_DIR: dataDir });
    assert.equal(keys.code, 0, keys.stderr);
    assert.equal(keys.stdout.trim().split('\n').length, 1, `no key was created: ${keys.stdout}`);
  });
});
