import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runCommand, type CommandResult } from './support/process.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { NodeVidgenClient, NotFoundError } from '../../packages/client/src/node/index.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { decodeRgb, frameDistance } from './support/video-server.ts';
import { taskBlobFiles } from './support/blob-files.ts';

const VIDGEN_BIN = fileURLToPath(new URL('../../packages/client/bin/vidgen.mjs', import.meta.url));

// Posters and sprite sheets: made by the engine from the verified MP4, stored beside it, served by
// the content route under the video's own rules (key or signed link, ETag, Range).
describe('content variants: poster and sprite sheet', () => {
  let svc: TestService;
  let key: string;
  let client: Api;
  let id: string;
  let done: { video: { url: string; thumbnail_url: string } };
  let dir: string;

  before(async () => {
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-variants-'));
    key = await svc.createKey('variants');
    client = api(svc.url, key);
    const submit = await client.post('/v1/videos/generations', {
      model: 'grok-imagine-video',
      prompt: 'a red sailboat on a calm sea at sunset',
      duration: 2,
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    id = submit.body.request_id;
    done = (
      await pollUntil(
        () => client.get(`/v1/videos/${id}`),
        (a) => a.status === 200,
      )
    ).body;
  });
  after(async () => {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (query: string, headers: Record<string, string> = {}, method = 'GET') =>
    fetch(`${svc.url}/v1/videos/${id}/content${query}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...headers },
    });

  it('hands out an absolute, signed poster link that works without the key', async () => {
    const link = new URL(done.video.thumbnail_url);
    assert.equal(link.origin, svc.url);
    assert.equal(link.searchParams.get('variant'), 'thumbnail');
    assert.ok(link.searchParams.get('sig'));
    const res = await fetch(link);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/webp');
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(body.subarray(8, 12).toString('latin1'), 'WEBP');
    const meta = await sharp(body).metadata();
    assert.deepEqual([meta.width, meta.height], [640, 360]);
    // A forged signature is refused as for the video.
    link.searchParams.set('sig', 'x'.repeat(43));
    assert.equal((await fetch(link)).status, 403);
  });

  it('takes the poster from the video itself', async () => {
    const video = Buffer.from(await (await get('')).arrayBuffer());
    const frames = await decodeRgb(video, 1280, 720);
    const poster = await sharp(Buffer.from(await (await get('?variant=thumbnail')).arrayBuffer()))
      .resize(1280, 720)
      .removeAlpha()
      .raw()
      .toBuffer();
    const nearest = Math.min(...frames.map((f) => frameDistance(f, poster)));
    assert.ok(nearest < 12, `the poster matches a frame of the video (mean difference ${nearest.toFixed(1)})`);
  });

  it('serves a sprite sheet of 5×2 tiles 160 px wide with the key', async () => {
    const res = await get('?variant=spritesheet');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/jpeg');
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    assert.deepEqual([meta.width, meta.height, meta.format], [800, 180, 'jpeg']);
  });

  it('follows the video’s ETag, Range and HEAD rules, with an ETag of its own', async () => {
    const whole = await get('?variant=thumbnail');
    const bytes = Buffer.from(await whole.arrayBuffer());
    const etag = whole.headers.get('etag')!;
    assert.notEqual(etag, (await get('', {}, 'HEAD')).headers.get('etag'));
    assert.equal((await get('?variant=thumbnail', { 'if-none-match': etag })).status, 304);
    const part = await get('?variant=thumbnail', { range: 'bytes=0-11' });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 0-11/${bytes.length}`);
    assert.ok(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(0, 12)));
    const head = await get('?variant=spritesheet', {}, 'HEAD');
    assert.equal(head.status, 200);
    assert.ok(Number(head.headers.get('content-length')) > 0);
  });

  it('is described in /openapi.json with the media type each variant really has', async () => {
    const doc = await (await fetch(`${svc.url}/openapi.json`)).json();
    const operation = doc.paths['/v1/videos/{id}/content'].get;
    for (const status of ['200', '206']) {
      const content = operation.responses[status].content as Record<string, { schema: { description: string } }>;
      // What the server answers for each query, against what the document says it answers.
      for (const [query, variant] of [
        ['', undefined],
        ['?variant=thumbnail', 'thumbnail'],
        ['?variant=spritesheet', 'spritesheet'],
      ] as const) {
        const res = await get(query, { range: 'bytes=0-0' });
        await res.arrayBuffer();
        const type = res.headers.get('content-type')!;
        assert.ok(content[type], `${status} documents ${type} (served for '${query}')`);
        const description = content[type].schema.description;
        if (variant)
          assert.match(description, new RegExp(`variant=${variant}`), `${type} is documented as the ${variant}`);
        else assert.match(description, /Without `variant`/);
      }
      assert.deepEqual(Object.keys(content).sort(), ['image/jpeg', 'image/webp', 'video/mp4']);
    }
  });

  it('refuses an unknown variant and a request without a key', async () => {
    const bad = await client.get(`/v1/videos/${id}/content?variant=gif`);
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /variant/);
    assert.equal((await fetch(`${svc.url}/v1/videos/${id}/content?variant=thumbnail`)).status, 401);
  });

  it('stores the images beside the video', async () => {
    const { files } = await taskBlobFiles(svc.dataDir, id);
    assert.equal(files.length, 3, files.join(', '));
    const [video, sprite, poster] = files;
    assert.match(video, /^[\w-]+\.\d+\.mp4$/);
    assert.equal(sprite, video.replace('.mp4', '.spritesheet.jpg'));
    assert.equal(poster, video.replace('.mp4', '.thumbnail.webp'));
  });

  it('fetches variants through the SDK and the CLI', async () => {
    const sdk = new NodeVidgenClient({ baseURL: svc.url, apiKey: key });
    const poster = await sdk.content.image(id, 'thumbnail');
    assert.equal(poster.contentType, 'image/webp');
    const signed = await sdk.content.image(id, 'thumbnail', { url: done.video.thumbnail_url });
    assert.deepEqual(signed.bytes, poster.bytes);
    const out = join(dir, 'sprite.jpg');
    const cli = await run(['download', id, '--variant', 'spritesheet', '-o', out], {
      VIDGEN_BASE_URL: svc.url,
      VIDGEN_API_KEY: key,
      VIDGEN_JOURNAL_DIR: join(dir, 'j'),
    });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal((await sharp(await readFile(out)).metadata()).width, 800);
  });

  it('answers 404 variant_not_found when a task has no such image', async () => {
    const stored = await taskBlobFiles(svc.dataDir, id);
    const [poster] = stored.files.filter((f) => f.endsWith('.webp'));
    await rm(join(stored.dir, poster));
    const res = await client.get(`/v1/videos/${id}/content?variant=thumbnail`);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'variant_not_found');
    const sdk = new NodeVidgenClient({ baseURL: svc.url, apiKey: key });
    await assert.rejects(sdk.content.image(id, 'thumbnail'), NotFoundError);
    assert.equal((await get('')).status, 200, 'the video itself is still served');
  });
});

function run(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return runCommand(process.execPath, [VIDGEN_BIN, ...args], {
    env: { VIDGEN_PROFILE: '/nonexistent/profile.json', ...env },
  });
}
