import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { ComfyUiStandIn } from '../../packages/server/test/support/comfyui-standin/comfyui-standin.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';

// A ComfyUI host configured the way docs/comfyui.md says, serving a catalog model end to end
// through the API (the host is the protocol-faithful stand-in: no GPU here).
it('serves a catalog model from a ComfyUI host configured by VIDGEN_COMFYUI_CONFIG', async () => {
  const standIn = await ComfyUiStandIn.start({ ffmpeg: resolveFfmpegBinaries({}).ffmpeg });
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-comfy-e2e-'));
  await writeFile(
    join(dir, 'comfyui.json'),
    JSON.stringify({
      hosts: [{ name: 'gpu-1', url: standIn.url, slots: 1 }],
      backends: { 'comfyui-wan22': { preset: 'wan2.2-ti2v-5b' } },
    }),
  );
  await writeFile(
    join(dir, 'models.json'),
    JSON.stringify({
      models: [
        {
          id: 'wan2.2-5b-480p',
          family: 'B',
          backend: 'comfyui-wan22',
          resolution: '480p',
          durations: [1],
          aspect_ratios: ['16:9', '1:1'],
        },
        {
          id: 'video-v1-5s',
          family: 'B',
          backend: 'renderer',
          resolution: '720p',
          durations: [5],
          aspect_ratios: ['16:9'],
        },
      ],
    }),
  );
  const svc = await startTestService({
    VIDGEN_COMFYUI_CONFIG: join(dir, 'comfyui.json'),
    VIDGEN_MODELS_FILE: join(dir, 'models.json'),
  });
  try {
    const key = await svc.createKey('gpu-user');
    const client = api(svc.url, key);
    const id = (
      await client.post('/v1/video/generations', {
        model: 'wan2.2-5b-480p',
        prompt: 'a fox running in snow',
        ratio: '1:1',
      })
    ).body.task_id;
    const done = await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
    );
    assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
    const { probe } = await downloadAndProbe(`${svc.url}${done.body.result_url}`, { authorization: `Bearer ${key}` });
    assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', 480, 480]);
    assert.ok(Math.abs(probe.durationSeconds - 1) < 0.1);
  } finally {
    await svc.close();
    await standIn.close();
    await rm(dir, { recursive: true, force: true });
  }
});
