/**
 * A second, real vidgen server on loopback playing the upstream of a relay (both families), with
 * small models so renders take a fraction of a second: 180p, family A for any duration 1–15 s,
 * family B one model per duration (B's model fixes the duration, as in the spec).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService } from '../../../../test/e2e/support/service.ts';
import { runServerCommand, spawnServer } from '../../../../test/e2e/support/process.ts';

export const UPSTREAM_B_DURATIONS = [1, 2, 15];

const CATALOG = {
  models: [
    { id: 'tiny-a', family: 'A', backend: 'renderer', resolution: '180p', durations: { min: 1, max: 15 } },
    ...UPSTREAM_B_DURATIONS.map((d) => ({
      id: `tiny-b-${d}s`,
      family: 'B',
      backend: 'renderer',
      resolution: '180p',
      durations: [d],
    })),
  ],
};

export interface RelayUpstream {
  url: string;
  /** A fresh account and key, so a test counts only the upstream tasks it caused. */
  newKey(): Promise<string>;
  /** Every task of the key's account in one family, newest first (the upstream's own listing). */
  tasks(key: string, family: 'A' | 'B'): Promise<Array<Record<string, any>>>;
  close(): Promise<void>;
}

/**
 * In this process by default. `separateProcess` runs it as its own `vidgen-server` process instead,
 * for the generator contract: that suite counts this process's children, and an upstream in this
 * process would have its own ffmpeg renders counted as the relay's.
 */
export async function startRelayUpstream(options: { separateProcess?: boolean } = {}): Promise<RelayUpstream> {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-relay-upstream-'));
  const catalog = join(dir, 'models.json');
  await writeFile(catalog, JSON.stringify(CATALOG));
  const env = { VIDGEN_MODELS_FILE: catalog, VIDGEN_RENDER_PRESET: 'ultrafast' };
  let accounts = 0;
  let url: string;
  let newKey: () => Promise<string>;
  let stop: () => Promise<void>;
  if (options.separateProcess) {
    const dataDir = join(dir, 'data');
    const processEnv = { ...env, VIDGEN_DATA_DIR: dataDir, VIDGEN_POLL_MS: '50' };
    newKey = async () =>
      (await runServerCommand(['keys', 'create', '--account', `relay-${++accounts}`], processEnv)).stdout.trim();
    await newKey();
    const server = await spawnServer(processEnv);
    [url, stop] = [server.url, () => server.stop()];
  } else {
    const service = await startTestService(env);
    [url, stop] = [service.url, () => service.close()];
    newKey = () => service.createKey(`relay-${++accounts}`);
  }
  return {
    url,
    newKey,
    async tasks(key, family) {
      const path = family === 'A' ? '/v1/videos' : '/v1/video/generations';
      const res = await fetch(`${url}${path}?limit=100`, { headers: { authorization: `Bearer ${key}` } });
      if (res.status !== 200) throw new Error(`upstream listing answered ${res.status}`);
      return ((await res.json()) as { data: Array<Record<string, any>> }).data;
    },
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
