import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NewApiStandin } from '../../../packages/server/test/support/newapi-standin.ts';
import { startS3Server, type TestS3Server } from '../../../packages/server/test/support/s3-server.ts';
import { PRICED_MODELS, startEconomicsService, type EconomicsService } from './economics.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

export const RELAY_KEY = 'sk-newapi-operator-console';
export const RELAY_MODEL = 'relay-180p';

/** What the operator console's browser journey runs against. */
export interface OperatorConsoleService {
  svc: EconomicsService;
  /** The relay channels' upstreams: two new-api stand-ins, `main` preferred (higher priority). */
  main: NewApiStandin;
  spare: NewApiStandin;
  /** A webhook receiver that fails every delivery until `inbox.healthy` is set. */
  inbox: Awaited<ReturnType<typeof startWebhookReceiver>> & { healthy: boolean };
  /** The S3 stand-in videos are stored in, when asked for. */
  s3?: TestS3Server;
  close(): Promise<void>;
}

/**
 * A real service for the console's journeys: the priced test models, a relay backend of two channels
 * to new-api stand-ins, two ComfyUI hosts (listed only: nothing renders there), webhooks that fail at
 * the first failed attempt, and with `s3` the videos in an S3 stand-in (content links redirect there).
 */
export async function startOperatorConsoleService(
  databaseUrl: string | undefined,
  { s3: withS3 = false } = {},
): Promise<OperatorConsoleService> {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-operator-console-'));
  const main = await NewApiStandin.start({ key: RELAY_KEY, models: ['video-v1'], pendingPolls: 0 });
  const spare = await NewApiStandin.start({ key: RELAY_KEY, models: ['video-v1'], pendingPolls: 0 });
  const receiver = await startWebhookReceiver(() => (inbox.healthy ? 200 : 500));
  const inbox = Object.assign(receiver, { healthy: false });
  const s3 = withS3 ? await startS3Server('vidgen-operator-console') : undefined;
  if (typeof s3 === 'string') throw new Error(s3);
  if (s3) {
    // The S3 client takes credentials from the SDK's chain (this process's environment), as the service
    // does in production; these are the stand-in's only key pair, no secret.
    process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
  }
  const channel = (name: string, url: string, priority: number) => ({
    name,
    dialect: 'B',
    base_url: url,
    api_key_env: 'NEWAPI_KEY',
    models: { [RELAY_MODEL]: 'video-v1' },
    priority,
    poll_interval_seconds: 0.02,
  });
  await writeFile(
    join(dir, 'backends.json'),
    JSON.stringify({
      backends: {
        'relay-video': { type: 'relay', channels: [channel('main', main.url, 10), channel('spare', spare.url, 1)] },
      },
    }),
  );
  await writeFile(
    join(dir, 'comfyui.json'),
    JSON.stringify({
      hosts: [
        { name: 'gpu-1', url: 'http://127.0.0.1:9', slots: 2 },
        { name: 'gpu-2', url: 'http://127.0.0.1:9' },
      ],
      backends: { 'comfy-wan': { preset: 'wan2.2-ti2v-5b' } },
    }),
  );
  const relayModel = {
    id: RELAY_MODEL,
    family: 'B',
    backend: 'relay-video',
    resolution: '180p',
    durations: [1],
    aspect_ratios: ['16:9'],
  };
  const svc = await startEconomicsService(
    databaseUrl,
    {
      VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
      VIDGEN_COMFYUI_CONFIG: join(dir, 'comfyui.json'),
      NEWAPI_KEY: RELAY_KEY,
      VIDGEN_WEBHOOK_MAX_ATTEMPTS: '1',
      ...(s3
        ? {
            VIDGEN_S3_BUCKET: s3.bucket,
            VIDGEN_S3_ENDPOINT: s3.endpoint,
            VIDGEN_S3_REGION: s3.region,
            VIDGEN_S3_FORCE_PATH_STYLE: '1',
          }
        : {}),
    },
    { models: [...PRICED_MODELS.models, relayModel] },
  );
  return {
    svc,
    main,
    spare,
    inbox,
    s3,
    async close() {
      await svc.close();
      await main.close();
      await spare.close();
      await inbox.close();
      await s3?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
