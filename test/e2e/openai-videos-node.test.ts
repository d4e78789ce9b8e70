import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import { startTestService, type TestService } from './support/service.ts';
import { dataUri, makeImage } from './support/images.ts';
import { probeBytes } from './support/probe-bytes.ts';
import { api } from './support/http.ts';

type Video = OpenAI.Videos.Video;

// The real `openai` Node SDK (node_modules/openai/src/resources/videos.ts), unmodified, against a
// real server: every call of `client.videos`, as its users write them. It sends create, edit and
// extend as multipart even without a file, with bracketed keys and `seconds` as text.
describe('the openai Node SDK against vidgen', () => {
  let svc: TestService;
  let client: OpenAI;
  let key: string;
  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('openai-node');
    client = new OpenAI({ apiKey: key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  });
  after(() => svc.close());

  const completed = async (video: Video): Promise<Video> => {
    let current = video;
    while (current.status === 'queued' || current.status === 'in_progress') {
      await new Promise((r) => setTimeout(r, 100));
      current = await client.videos.retrieve(video.id);
    }
    return current;
  };
  const download = async (id: string, variant?: 'video' | 'thumbnail' | 'spritesheet') => {
    const res = await client.videos.downloadContent(id, variant ? { variant } : undefined);
    return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };

  let first: Video;
  it('creates from a prompt, polls to completed and downloads a verified MP4, poster and sprite sheet', async () => {
    const created = await client.videos.create({
      model: 'sora-2',
      prompt: 'a red kite over a beach',
      seconds: '4',
      size: '1280x720',
    });
    assert.match(created.id, /^video_[0-9a-f]{32}$/);
    assert.equal(created.object, 'video');
    assert.equal(created.status, 'queued');
    assert.equal(created.seconds, '4');
    assert.equal(created.size, '1280x720');
    assert.equal(created.remixed_from_video_id, null);
    assert.equal(created.error, null);
    const raw = await client.videos.retrieve(created.id).asResponse();
    const pending = (await raw.json()) as Video;
    if (pending.status !== 'completed') assert.ok(Number(raw.headers.get('openai-poll-after-ms')) > 0);
    first = await completed(created);
    assert.equal(first.status, 'completed', JSON.stringify(first));
    assert.equal(first.progress, 100);
    assert.ok(first.completed_at && first.expires_at && first.expires_at > first.completed_at);
    assert.equal((first as Video & { usage?: { cost_in_usd_ticks: number } }).usage?.cost_in_usd_ticks, 4 * 1e9);
    const video = await download(first.id);
    assert.equal(video.type, 'video/mp4');
    const probe = await probeBytes(video.bytes);
    assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', 1280, 720]);
    assert.equal(Math.round(probe.durationSeconds), 4);
    assert.deepEqual((await download(first.id, 'video')).bytes, video.bytes);
    const poster = await download(first.id, 'thumbnail');
    assert.equal(poster.type, 'image/webp');
    assert.equal(poster.bytes.subarray(8, 12).toString(), 'WEBP');
    const sprites = await download(first.id, 'spritesheet');
    assert.equal(sprites.type, 'image/jpeg');
    assert.deepEqual([...sprites.bytes.subarray(0, 2)], [0xff, 0xd8]);
  });

  it('creates with an input_reference file part and with an image_url data URL', async () => {
    const png = await makeImage(720, 1280, 'png');
    const withFile = await client.videos.create({
      prompt: 'the first frame comes alive',
      seconds: '4',
      size: '720x1280',
      input_reference: await toFile(png, 'frame.png', { type: 'image/png' }),
    });
    assert.equal(withFile.model, 'sora-2');
    const withUrl = await client.videos.create({
      prompt: 'the first frame, again',
      seconds: '4',
      size: '720x1280',
      input_reference: { image_url: dataUri(png, 'image/png') },
    });
    for (const video of [await completed(withFile), await completed(withUrl)]) {
      assert.equal(video.status, 'completed', JSON.stringify(video));
      const probe = await probeBytes((await download(video.id)).bytes);
      assert.deepEqual([probe.width, probe.height, Math.round(probe.durationSeconds)], [720, 1280, 4]);
    }
  });

  it('remixes, edits and extends a completed video', async () => {
    const remix = await completed(await client.videos.remix(first.id, { prompt: 'make it black and white' }));
    assert.equal(remix.status, 'completed', JSON.stringify(remix));
    assert.equal(remix.remixed_from_video_id, first.id);
    assert.equal(remix.size, '1280x720');
    const edit = await completed(
      await client.videos.edit({ prompt: 'give it a warm colour grade', video: { id: first.id } }),
    );
    assert.equal(edit.status, 'completed', JSON.stringify(edit));
    // The same path as JSON, as a gateway or curl sends it: the body's `video.id` makes it this
    // dialect's; family A's body shape on the same path stays family A's.
    const http = api(svc.url, key);
    const json = await http.post('/v1/videos/edits', { prompt: 'make it sepia', video: { id: first.id } });
    assert.equal(json.status, 200, JSON.stringify(json.body));
    assert.equal(json.body.object, 'video');
    assert.equal((await completed(json.body)).status, 'completed');
    const familyA = await http.post('/v1/videos/edits', {
      model: 'sora-2',
      prompt: 'x',
      video: { url: 'https://example.com/v.mp4' },
    });
    assert.equal(familyA.status, 400);
    assert.equal(familyA.body.error.code, 'model_wrong_endpoint');
    const extended = await completed(
      await client.videos.extend({ prompt: 'the kite flies on', seconds: '4', video: { id: first.id } }),
    );
    assert.equal(extended.status, 'completed', JSON.stringify(extended));
    assert.equal(extended.seconds, '8');
    const probe = await probeBytes((await download(extended.id)).bytes);
    assert.deepEqual([probe.width, probe.height, Math.round(probe.durationSeconds)], [1280, 720, 8]);
  });

  it('reports a run-time failure as status failed with error code and message', async () => {
    const failed = await completed(await client.videos.remix(first.id, { prompt: 'something nobody can do' }));
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'edit_not_understood');
    assert.match(failed.error?.message ?? '', /names no edit/);
  });

  it('lists every video with auto-pagination in both orders', async () => {
    const desc: string[] = [];
    for await (const video of client.videos.list({ limit: 2 })) desc.push(video.id);
    const asc: string[] = [];
    for await (const video of client.videos.list({ limit: 3, order: 'asc' })) asc.push(video.id);
    assert.equal(desc.length, 8);
    assert.deepEqual(asc, [...desc].reverse());
    assert.equal(desc.at(-1), first.id);
    // A bare listing without the SDK's headers is family A's, as it always was.
    const familyA = await api(svc.url, key).get('/v1/videos');
    assert.deepEqual(familyA.body.data, []);
  });

  it('remixes "Same scene at night" and edits "Make it autumn": everyday words the built-in renderer knows', async () => {
    const night = await completed(await client.videos.remix(first.id, { prompt: 'Same scene at night' }));
    assert.equal(night.status, 'completed', JSON.stringify(night));
    const autumn = await completed(await client.videos.edit({ prompt: 'Make it autumn', video: { id: first.id } }));
    assert.equal(autumn.status, 'completed', JSON.stringify(autumn));
    for (const video of [night, autumn]) {
      const probe = await probeBytes((await download(video.id)).bytes);
      assert.deepEqual([probe.width, probe.height], [1280, 720]);
    }
  });

  it('deletes a finished video, after which it is a 404', async () => {
    const gone = await client.videos.delete(first.id);
    assert.deepEqual(gone, { id: first.id, object: 'video.deleted', deleted: true });
    await assert.rejects(client.videos.retrieve(first.id), OpenAI.NotFoundError);
    // Deleted by its owner: a 404 in its own words (the SDK's NotFoundError), not expiry's 410.
    const content = await client.videos.downloadContent(first.id).catch((err: unknown) => err);
    assert.ok(content instanceof OpenAI.NotFoundError, String(content));
    assert.equal(content.code, 'video_deleted');
    assert.match(content.message, /deleted by its owner/);
    for (const variant of ['thumbnail', 'spritesheet'] as const) {
      const image = await client.videos.downloadContent(first.id, { variant }).catch((err: unknown) => err);
      assert.ok(image instanceof OpenAI.NotFoundError, `${variant}: ${String(image)}`);
    }
    const listed: string[] = [];
    for await (const video of client.videos.list()) listed.push(video.id);
    assert.ok(!listed.includes(first.id));
  });

  it('refuses bad input with typed errors naming the field', async () => {
    const badSeconds = await client.videos.create({ prompt: 'x', seconds: '5' as '4' }).catch((e) => e);
    assert.ok(badSeconds instanceof OpenAI.BadRequestError, String(badSeconds));
    assert.equal(badSeconds.param, 'seconds');
    const badSize = await client.videos.create({ prompt: 'x', size: '1792x1024' }).catch((e) => e);
    assert.ok(badSize instanceof OpenAI.BadRequestError, String(badSize));
    assert.equal(badSize.param, 'size');
    const wrongKey = new OpenAI({ apiKey: 'vg-wrong', baseURL: `${svc.url}/v1`, maxRetries: 0 });
    await assert.rejects(wrongKey.videos.list(), OpenAI.AuthenticationError);
    await assert.rejects(client.videos.retrieve(`video_${'0'.repeat(32)}`), OpenAI.NotFoundError);
  });
});
