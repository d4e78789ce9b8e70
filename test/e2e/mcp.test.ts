import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestService, type TestService } from './support/service.ts';
import { startSteeredUpstream, until, type SteeredUpstream } from './support/steered-upstream.ts';
import { downloadAndProbe } from './support/video.ts';
import { CallToolResultSchema, connectMcp, createAsTask, type McpTransportKind } from './support/mcp-clients.ts';

// The MCP endpoint through the official SDK's client, over HTTP and through `vidgen mcp` on
// stdio: tools, the task flow, plain calls, refusals, tenants. A renderer model makes real MP4s;
// a steered relay model holds a task at the progress the test sets, for cancels and waits.
const RENDERED = 'tiny-mcp';
const HELD = 'steered-o';

describe('MCP endpoint', () => {
  let upstream: SteeredUpstream;
  let svc: TestService;
  let dir: string;
  let keys: { own: string; other: string };

  before(async () => {
    upstream = await startSteeredUpstream();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-mcp-'));
    const models = [
      { id: HELD, family: 'O', backend: 'steered', resolution: '180p', durations: [1], aspect_ratios: ['16:9'] },
      {
        id: RENDERED,
        family: 'A',
        backend: 'renderer',
        resolution: '180p',
        durations: [1, 2],
        aspect_ratios: ['16:9', '9:16'],
        price: { usd_ticks_per_second: 1000 },
        capabilities: { generate: true, edit: true, extend: true },
      },
    ];
    await writeFile(join(dir, 'models.json'), JSON.stringify({ models }));
    svc = await startTestService({
      ...upstream.env,
      VIDGEN_MODELS_FILE: join(dir, 'models.json'),
      VIDGEN_BODY_LIMIT_MB: '1',
    });
    keys = { own: await svc.createKey('mcp-agent'), other: await svc.createKey('mcp-other') };
  });
  after(async () => {
    await svc?.close();
    await upstream?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('without a key there is no answer, and a foreign Origin is refused', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const bare = await fetch(`${svc.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    assert.equal(bare.status, 401);
    assert.equal((await bare.json()).result, undefined);
    const foreign = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${keys.own}`, origin: 'http://rebound.example' },
      body: JSON.stringify(init),
    });
    assert.equal(foreign.status, 403);
    assert.equal((await foreign.json()).result, undefined);
    for (const kind of ['http', 'stdio'] as const) await assert.rejects(connectMcp(kind, svc.url), kind);
    // The API's body limit holds here too.
    const oversized = { ...init, params: { ...init.params, padding: 'x'.repeat(1024 * 1024) } };
    const big = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${keys.own}` },
      body: JSON.stringify(oversized),
    });
    assert.equal(big.status, 413);
  });

  for (const kind of ['http', 'stdio'] as McpTransportKind[]) {
    describe(`over ${kind}`, () => {
      let client: Client;
      let other: Client;
      before(async () => {
        client = await connectMcp(kind, svc.url, keys.own);
        other = await connectMcp(kind, svc.url, keys.other);
      });
      after(async () => {
        await client?.close();
        await other?.close();
      });

      it('lists the tools with their schemas; creates may be tasks', async () => {
        const { tools } = await client.listTools();
        const byName = new Map(tools.map((tool) => [tool.name, tool]));
        assert.deepEqual([...byName.keys()].sort(), [
          'cancel_video',
          'edit_video',
          'extend_video',
          'generate_video',
          'get_video',
          'list_models',
          'list_videos',
        ]);
        const generate = byName.get('generate_video')!;
        assert.deepEqual(Object.keys(generate.inputSchema.properties ?? {}).sort(), [
          'aspect_ratio',
          'duration',
          'generate_audio',
          'idempotency_key',
          'image',
          'keyframes',
          'last_frame',
          'model',
          'prompt',
          'reference_images',
          'seed',
          'size',
        ]);
        assert.deepEqual(generate.inputSchema.required, ['prompt', 'model']);
        for (const name of ['generate_video', 'edit_video', 'extend_video'])
          assert.equal(byName.get(name)!.execution?.taskSupport, 'optional', name);
        assert.equal(byName.get('get_video')!.execution, undefined);
        assert.ok(generate.outputSchema?.properties?.cost_in_usd_ticks);
        const models = await client.callTool({ name: 'list_models', arguments: {} });
        type Listed = { id: string; durations: number[]; sizes: string[] };
        const rendered = (models.structuredContent as { models: Listed[] }).models.find((m) => m.id === RENDERED);
        assert.deepEqual(rendered?.durations, [1, 2]);
        assert.deepEqual(rendered?.sizes, ['320x180', '180x320']);
      });

      it('a create called as a task: taskCreated, then a result linking a real MP4 with its poster', async () => {
        const stream = client.experimental.tasks.callToolStream(
          { name: 'generate_video', arguments: { prompt: `a fox over ${kind}`, model: RENDERED, duration: 2 } },
          CallToolResultSchema,
          { task: { ttl: 60_000 } },
        );
        const messages = [];
        for await (const message of stream) messages.push(message);
        const created = messages[0];
        assert.equal(created.type, 'taskCreated');
        if (created.type !== 'taskCreated') return;
        assert.match(created.task.taskId, /^video_[0-9a-f]{32}$/);
        assert.equal(created.task.status, 'working');
        assert.equal(created.task.ttl, 60_000);
        // Family A's own poll hint (4 s) is longer than the 2 s floor.
        assert.equal(created.task.pollInterval, 4000);
        const last = messages.at(-1)!;
        assert.equal(last.type, 'result', JSON.stringify(last));
        if (last.type !== 'result') return;
        const video = last.result.structuredContent as Record<string, any>;
        assert.equal(video.id, created.task.taskId);
        assert.equal(video.status, 'completed');
        assert.equal(video.progress, 100);
        assert.equal(video.duration, 2);
        assert.equal(video.has_audio, false);
        assert.equal(video.cost_in_usd_ticks, 2000);
        const link = last.result.content.find((c) => c.type === 'resource_link');
        assert.equal(link?.type === 'resource_link' && link.uri, video.url);
        assert.equal(link?.type === 'resource_link' && link.mimeType, 'video/mp4');
        const { probe } = await downloadAndProbe(video.url);
        assert.equal(probe.codec, 'h264');
        assert.equal(probe.height, 180);
        const poster = last.result.content.find((c) => c.type === 'image');
        assert.ok(poster?.type === 'image');
        const bytes = Buffer.from(poster.data, 'base64');
        assert.equal(poster.mimeType, 'image/webp');
        assert.ok(bytes.length <= 64 * 1024);
        assert.equal(bytes.subarray(8, 12).toString('latin1'), 'WEBP');
      });

      it('getTask, listTasks and cancelTask work on the task rows; another account finds nothing', async () => {
        const prompt = `held for a cancel over ${kind}`;
        const task = await createAsTask(client, 'generate_video', { prompt, model: HELD });
        assert.equal(task.status, 'working');
        assert.equal(task.pollInterval, 2000);
        const job = await upstream.jobFor(prompt);
        job.steer.progress = 30;
        // The relay reports the upstream's steps on its own scale: any step past the start will do.
        await until(async () => {
          const seen = await client.experimental.tasks.getTask(task.taskId);
          return Number(/^in_progress \((\d+)%\)$/.exec(seen.statusMessage ?? '')?.[1]) >= 20;
        });
        const listed = await client.experimental.tasks.listTasks();
        assert.ok(listed.tasks.some((t) => t.taskId === task.taskId));
        await assert.rejects(other.experimental.tasks.getTask(task.taskId), /not found/i);
        await assert.rejects(other.experimental.tasks.cancelTask(task.taskId), /not found/i);
        const stranger = await other.callTool({ name: 'get_video', arguments: { id: task.taskId } });
        assert.equal(stranger.isError, true);
        assert.match(JSON.stringify(stranger.content), /No task found/);
        const canceled = await client.experimental.tasks.cancelTask(task.taskId);
        assert.equal(canceled.status, 'cancelled');
        assert.equal((await client.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
        await assert.rejects(client.experimental.tasks.cancelTask(task.taskId), /already ended/);
        const video = await client.callTool({ name: 'get_video', arguments: { id: task.taskId } });
        assert.equal((video.structuredContent as { status: string }).status, 'cancelled');
      });

      it('a plain call waits, telling progress, and answers the finished video', async () => {
        const prompt = `a plain wait over ${kind}`;
        const progress: number[] = [];
        const call = client.callTool(
          { name: 'generate_video', arguments: { prompt, model: HELD, idempotency_key: `plain-${kind}` } },
          CallToolResultSchema,
          { onprogress: (p) => progress.push(p.progress) },
        );
        const job = await upstream.jobFor(prompt);
        job.steer.progress = 55;
        await until(() => progress.some((p) => p >= 40));
        job.steer.done = true;
        const result = await call;
        const video = result.structuredContent as Record<string, any>;
        assert.equal(video.status, 'completed');
        assert.match(video.url, /\/content\?expires=/);
        // The same idempotency key and arguments again: the same video, not a second task.
        const again = await client.callTool({
          name: 'generate_video',
          arguments: { prompt, model: HELD, idempotency_key: `plain-${kind}` },
        });
        assert.equal((again.structuredContent as { id: string }).id, video.id);
        // get_video takes the id another API gives the same task (its own id, as family A and B name it).
        const uuid = video.id.replace(/^video_(\w{8})(\w{4})(\w{4})(\w{4})(\w{12})$/, '$1-$2-$3-$4-$5');
        const byOtherId = await client.callTool({ name: 'get_video', arguments: { id: uuid } });
        assert.equal((byOtherId.structuredContent as { id: string }).id, video.id);
        const page = await client.callTool({ name: 'list_videos', arguments: {} });
        assert.ok((page.structuredContent as { videos: Array<{ id: string }> }).videos.some((v) => v.id === video.id));
      });

      it("an extension takes one of the account's videos by id", async () => {
        const made = await client.callTool({
          name: 'generate_video',
          arguments: { prompt: `a tide pool over ${kind}`, model: RENDERED, duration: 1, size: '180x320' },
        });
        const source = made.structuredContent as { id: string; status: string };
        assert.equal(source.status, 'completed');
        const extended = await client.callTool({
          name: 'extend_video',
          arguments: { prompt: 'the tide comes in', model: RENDERED, video: { id: source.id }, duration: 1 },
        });
        const video = extended.structuredContent as { status: string; duration: number; url: string };
        assert.equal(video.status, 'completed', JSON.stringify(extended.content));
        const { probe } = await downloadAndProbe(video.url);
        assert.equal(probe.height, 320);
        assert.ok(probe.durationSeconds > 1.5);
        const both = await client.callTool({
          name: 'edit_video',
          arguments: { prompt: 'x', model: RENDERED, video: { id: source.id, url: 'https://example.com/a.mp4' } },
        });
        assert.equal(both.isError, true);
        assert.match(JSON.stringify(both.content), /`video` must have exactly one of `id` or `url`/);
      });

      it('bad arguments are tool errors naming the field; an unknown tool is a protocol error', async () => {
        const unknownModel = await client.callTool({
          name: 'generate_video',
          arguments: { prompt: 'x', model: 'no-such-model' },
        });
        assert.equal(unknownModel.isError, true);
        assert.match(JSON.stringify(unknownModel.content), /no-such-model/);
        const disagree = await client.callTool({
          name: 'generate_video',
          arguments: { prompt: 'x', model: RENDERED, size: '320x180', aspect_ratio: '9:16' },
        });
        assert.equal(disagree.isError, true);
        assert.match(JSON.stringify(disagree.content), /`size`.*`aspect_ratio`/);
        const badType = await client.callTool({
          name: 'generate_video',
          arguments: { prompt: 'x', model: RENDERED, duration: 'long' },
        });
        assert.match(JSON.stringify(badType.content), /`duration` must be an integer/);
        const badRatio = await client.callTool({
          name: 'generate_video',
          arguments: { prompt: 'x', model: RENDERED, aspect_ratio: '4:3' },
        });
        assert.match(JSON.stringify(badRatio.content), /`aspect_ratio`/);
        // The model takes a first frame only: a last frame is refused by name, as the HTTP API refuses it.
        const lastFrame = await client.callTool({
          name: 'generate_video',
          arguments: { prompt: 'x', model: RENDERED, last_frame: { url: 'https://example.com/end.png' } },
        });
        assert.equal(lastFrame.isError, true);
        assert.match(JSON.stringify(lastFrame.content), /last_frame/);
        await assert.rejects(client.callTool({ name: 'make_coffee', arguments: {} }), /Unknown tool/);
        // Called as a task, a refusal is the call's error (no task was made), in the API's words.
        await assert.rejects(
          createAsTask(client, 'generate_video', { prompt: 'x', model: 'no-such-model' }),
          /The model 'no-such-model' does not exist/,
        );
      });
    });
  }
});
