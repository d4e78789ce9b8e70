import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startModerationStandin,
  type ModerationStandin,
} from '../../packages/server/test/support/moderation-standin.ts';
import { api } from './support/http.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

const MODERATION_KEY = 'moderation-test-key';

/** A port nothing listens on: the moderation endpoint is down. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function guarded(rules: unknown): Promise<EconomicsService> {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-guardrails-'));
  dirs.push(dir);
  await writeFile(join(dir, 'guardrails.json'), JSON.stringify(rules));
  return startEconomicsService(undefined, {
    VIDGEN_GUARDRAILS_FILE: join(dir, 'guardrails.json'),
    TEST_MODERATION_KEY: MODERATION_KEY,
  });
}

describe('prompt guardrails', () => {
  let moderation: ModerationStandin;
  let svc: EconomicsService;
  before(async () => {
    moderation = await startModerationStandin({ key: MODERATION_KEY, flagWords: ['dynamite'] });
    svc = await guarded({
      words: ['forbidden'],
      patterns: ['secret\\s+plans?'],
      moderation: { url: `${moderation.url}/v1/moderations`, api_key_env: 'TEST_MODERATION_KEY' },
    });
  });
  after(async () => {
    await svc?.close();
    await moderation?.close();
  });

  it('a listed word or pattern is refused in both dialects, with nothing held or stored', async () => {
    const key = await svc.account('guarded', { credits_usd_ticks: 10 * TICKS_PER_SECOND });
    const client = api(svc.url, key);
    const b = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'a FORBIDDEN city' });
    assert.equal(b.status, 400);
    assert.deepEqual([b.body.error.code, b.body.error.param], ['content_policy_violation', 'prompt']);
    assert.ok(b.headers.get('x-request-id'));
    const a = await client.post('/v1/videos/generations', {
      model: 'tiny-a',
      prompt: 'the secret plans of the castle',
      duration: 1,
      image: { url: 'http://127.0.0.1:9/never-fetched.png' },
    });
    assert.equal(a.status, 400);
    assert.equal(a.body.error.code, 'content_policy_violation');
    assert.equal((await client.get('/v1/video/generations?limit=10')).body.data.length, 0);
    const account = (await client.get('/v1/account')).body;
    assert.deepEqual([account.balance_usd_ticks, account.held_usd_ticks], [10 * TICKS_PER_SECOND, 0]);
    const kinds = (await svc.admin.get('/admin/v1/ledger?account=guarded')).body.data.map((e: any) => e.kind);
    assert.deepEqual(kinds, ['grant']);
    // A word inside another word is not the word.
    assert.equal(
      (await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'unforbiddenly' })).status,
      200,
    );
  });

  it('a prompt the moderation endpoint flags is refused; a clean one passes', async () => {
    const client = api(svc.url, await svc.account('moderated'));
    const flagged = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'a crate of dynamite' });
    assert.deepEqual([flagged.status, flagged.body.error.code], [400, 'content_policy_violation']);
    const clean = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'a crate of apples' });
    assert.equal(clean.status, 200);
    assert.ok(moderation.inputs.includes('a crate of dynamite') && moderation.inputs.includes('a crate of apples'));
  });

  for (const onError of ['closed', 'open'] as const) {
    it(`an unreachable moderation endpoint fails ${onError}`, async () => {
      const down = await guarded({
        moderation: {
          url: `http://127.0.0.1:${await deadPort()}/v1/moderations`,
          on_error: onError,
          timeout_seconds: 2,
        },
      });
      try {
        const client = api(down.url, await down.account('down'));
        const answer = await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'anything' });
        if (onError === 'closed') {
          assert.deepEqual([answer.status, answer.body.error.code], [503, 'service_unavailable']);
          assert.equal((await client.get('/v1/video/generations')).body.data.length, 0);
        } else assert.equal(answer.status, 200, JSON.stringify(answer.body));
      } finally {
        await down.close();
      }
    });
  }
});
