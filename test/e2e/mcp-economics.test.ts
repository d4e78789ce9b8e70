import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';
import { api } from './support/http.ts';
import { CallToolResultSchema, connectMcp, createAsTask } from './support/mcp-clients.ts';

// Money and limits through MCP are the HTTP API's own: the same task service holds, settles and
// refuses, in the same ledger (docs/economics.md).
describe('MCP: prices, credits, limits and the ledger', () => {
  let svc: EconomicsService;
  before(async () => {
    svc = await startEconomicsService();
  });
  after(async () => {
    await svc.close();
  });

  type Answer = Record<string, unknown>;
  const text = (result: Answer) => JSON.stringify(result.content);

  it('credits for two tasks: two are charged their price, the third is refused and writes nothing', async () => {
    const key = await svc.account('mcp-payer', { credits_usd_ticks: 2 * TICKS_PER_SECOND });
    const client = await connectMcp('http', svc.url, key);
    try {
      const first = await client.callTool({ name: 'generate_video', arguments: { prompt: 'one', model: 'tiny-o' } });
      const video = first.structuredContent as { status: string; cost_in_usd_ticks: number };
      assert.equal(video.status, 'completed');
      assert.equal(video.cost_in_usd_ticks, TICKS_PER_SECOND);
      const second = await createAsTask(client, 'generate_video', { prompt: 'two', model: 'tiny-o' });
      const third = await client.callTool({ name: 'generate_video', arguments: { prompt: 'three', model: 'tiny-o' } });
      assert.equal(third.isError, true);
      assert.match(text(third), /credit/i);
      const done = await client.experimental.tasks.getTaskResult(second.taskId, CallToolResultSchema);
      assert.equal((done.structuredContent as { cost_in_usd_ticks: number }).cost_in_usd_ticks, TICKS_PER_SECOND);
      const listed = await client.callTool({ name: 'list_videos', arguments: {} });
      assert.equal((listed.structuredContent as { videos: unknown[] }).videos.length, 2);
      assert.equal((await api(svc.url, key).get('/v1/account')).body.available_usd_ticks, 0);
      assert.deepEqual((await svc.verify()).problems, []);
    } finally {
      await client.close();
    }
  });

  it("the key's rate limit refuses a create with the API's message", async () => {
    const key = await svc.account('mcp-hasty', { limits: { requests_per_minute: 1 } });
    const client = await connectMcp('http', svc.url, key);
    try {
      // A window may turn between two creates on a slow machine: create until refused.
      let refused: Answer | undefined;
      for (let i = 0; i < 5 && !refused; i++) {
        const answer = await client.callTool({
          name: 'generate_video',
          arguments: { prompt: `r${i}`, model: 'tiny-o' },
        });
        if (answer.isError) refused = answer;
      }
      // Called as a task, the refusal is the call's error, with the same words.
      await assert.rejects(
        createAsTask(client, 'generate_video', { prompt: 'as a task', model: 'tiny-o' }),
        /rate|per minute/i,
      );
      assert.ok(refused, 'a create was refused');
      assert.equal(refused.isError, true);
      assert.match(text(refused), /rate|per minute/i);
    } finally {
      await client.close();
    }
  });
});
