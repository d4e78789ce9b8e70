import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { ComfyUiStandIn } from '../../packages/server/test/support/comfyui-standin/comfyui-standin.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { PRICED_MODELS, startEconomicsService, type EconomicsService } from './support/economics.ts';

const comfyModel = (id: string, backend: string) => ({
  id,
  family: 'B',
  backend,
  resolution: '480p',
  durations: [1],
  aspect_ratios: ['16:9'],
});

// The ComfyUI hosts for the operator (`GET /admin/v1/comfyui-hosts`), read-only, with their slots,
// the slots this process holds and its cooldown after a failure, on SQLite and PostgreSQL. Two
// protocol-faithful ComfyUI stand-ins are the hosts; one is made to answer 503 to see a cooldown.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`ComfyUI hosts in the admin API (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    let client: Api;
    let gpuA: ComfyUiStandIn;
    let gpuB: ComfyUiStandIn;
    let dir = '';
    const hosts = () => svc.admin.get('/admin/v1/comfyui-hosts');
    const submit = async (model: string) =>
      (await client.post('/v1/video/generations', { model, prompt: 'a fox in snow' })).body.task_id as string;

    before(async () => {
      db = created as TestDatabase;
      const ffmpeg = resolveFfmpegBinaries({}).ffmpeg;
      [gpuA, gpuB] = [await ComfyUiStandIn.start({ ffmpeg }), await ComfyUiStandIn.start({ ffmpeg })];
      const config = {
        hosts: [
          { name: 'gpu-a', url: gpuA.url, slots: 2, headers: { authorization: 'Bearer host-secret' } },
          { name: 'gpu-b', url: gpuB.url },
        ],
        backends: {
          'comfy-a': { preset: 'wan2.2-ti2v-5b', hosts: ['gpu-a'] },
          'comfy-b': { preset: 'wan2.2-ti2v-5b', hosts: ['gpu-b'] },
          'comfy-any': { preset: 'wan2.2-ti2v-5b' },
        },
      };
      dir = await mkdtemp(join(tmpdir(), 'vidgen-comfy-hosts-'));
      await writeFile(join(dir, 'comfyui.json'), JSON.stringify(config));
      svc = await startEconomicsService(
        name === 'PostgreSQL' ? db.location : undefined,
        { VIDGEN_COMFYUI_CONFIG: join(dir, 'comfyui.json') },
        { models: [...PRICED_MODELS.models, comfyModel('wan-a', 'comfy-a'), comfyModel('wan-b', 'comfy-b')] },
      );
      client = api(svc.url, await svc.account('gpu-user'));
    });
    after(async () => {
      await svc?.close();
      await gpuA?.close();
      await gpuB?.close();
      await db?.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('lists every host in config order with its slots and backends, never its URL or headers', async () => {
      const listed = await svc.admin.get('/admin/v1/comfyui-hosts');
      assert.equal(listed.status, 200);
      assert.equal(listed.body.cooldown_scope, 'process');
      assert.deepEqual(
        listed.body.data.map((h: any) => [h.object, h.name, h.slots, h.busy, h.cooling_down_until, h.backends]),
        [
          ['comfyui_host', 'gpu-a', 2, 0, null, ['comfy-a', 'comfy-any']],
          ['comfyui_host', 'gpu-b', 1, 0, null, ['comfy-b', 'comfy-any']],
        ],
      );
      const text = JSON.stringify(listed.body);
      for (const secret of [gpuA.url, gpuB.url, 'host-secret']) assert.equal(text.includes(secret), false);
      assert.equal((await client.get('/admin/v1/comfyui-hosts')).status, 401, 'a tenant key is not the admin token');
    });

    it('shows the slot a render holds while it runs, and gives it back', async () => {
      gpuA.faults = { slow: true };
      const id = await submit('wan-a');
      await pollUntil(hosts, (a) => a.body.data[0].busy === 1);
      gpuA.faults = {};
      await pollUntil(
        () => client.get(`/v1/video/generations/${id}`),
        (a) => a.body.status === 'SUCCESS',
      );
      assert.equal((await hosts()).body.data[0].busy, 0);
    });

    it('shows the cooldown this process gives a host that failed', async () => {
      gpuB.faults = { serverError: 503 };
      const before = Date.now();
      await submit('wan-b');
      const cooling = await pollUntil(hosts, (a) => a.body.data[1].cooling_down_until !== null);
      assert.ok(cooling.body.data[1].cooling_down_until > before, 'a time to come');
      assert.equal(cooling.body.data[0].cooling_down_until, null, 'the other host is not cooling down');
      gpuB.faults = {};
    });
  });
}
