import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { startTestService, type TestService } from './support/service.ts';
import { KEY_CACHE_MS } from '../../packages/server/src/api/authenticate.ts';

// A keep-alive connection remembers the key it last proved (api/authenticate.ts). One connection
// may carry several clients' requests (a proxy's pool): each request is still its own key's.
describe('keys over one keep-alive connection', () => {
  let svc: TestService;
  // One socket for every request of the test.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    agent.destroy();
    await svc.close();
  });

  function account(key: string): Promise<{ status: number; id?: string; reused: boolean }> {
    return new Promise((resolve, reject) => {
      const req = request(`${svc.url}/v1/account`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, id: JSON.parse(text).id, reused: req.reusedSocket }),
        );
      });
      req.on('error', reject).end();
    });
  }

  it('answers each request as its own key, whatever the connection proved before', async () => {
    const alice = await svc.createKey('conn-alice');
    const bob = await svc.createKey('conn-bob');
    const first = await account(alice);
    assert.equal(first.status, 200);
    const second = await account(bob);
    assert.equal(second.status, 200);
    assert.equal(second.reused, true);
    assert.notEqual(second.id, first.id);
    const wrong = await account(`${alice.slice(0, -1)}${alice.endsWith('A') ? 'B' : 'A'}`);
    assert.equal(wrong.status, 401);
    assert.equal((await account(alice)).id, first.id);
  });

  it('stops trusting a revoked key on the same connection within the key cache time', async () => {
    const key = await svc.createKey('conn-revoked');
    assert.equal((await account(key)).status, 200);
    await svc.revokeKeyOf(key);
    const deadline = Date.now() + KEY_CACHE_MS + 1000;
    let last = await account(key);
    while (last.status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      last = await account(key);
    }
    assert.equal(last.status, 401);
    assert.equal(last.reused, true);
  });
});
