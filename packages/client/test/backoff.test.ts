import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, parseRetryAfter, sleep, DEFAULT_BACKOFF } from '../src/core/backoff.ts';
import { canonicalJson, requestFingerprint } from '../src/core/fingerprint.ts';
import { APIUserAbortError } from '../src/errors.ts';

describe('backoff', () => {
  it('doubles from the initial delay up to the cap', () => {
    const noJitter = () => 0;
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, DEFAULT_BACKOFF, undefined, noJitter)),
      [500, 1000, 2000, 4000, 8000, 8000],
    );
  });

  it('jitters downwards by at most the jitter share', () => {
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(3, DEFAULT_BACKOFF);
      assert.ok(d >= 2000 * 0.75 && d <= 2000, `delay ${d}`);
    }
    assert.equal(
      backoffDelay(3, DEFAULT_BACKOFF, undefined, () => 1),
      1500,
    );
  });

  it('lets a Retry-After win over the curve', () => {
    assert.equal(backoffDelay(5, DEFAULT_BACKOFF, 1000), 1000);
    assert.equal(backoffDelay(1, DEFAULT_BACKOFF, 0), 0);
  });

  it('reads Retry-After as seconds, HTTP date or retry-after-ms', () => {
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '4' })), 4000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': '1.5' })), 1500);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' })), 250);
    const now = Date.parse('2030-01-01T00:00:00Z');
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 01 Jan 2030 00:00:10 GMT' }), now), 10_000);
    assert.equal(parseRetryAfter(new Headers({ 'retry-after': 'soon' })), undefined);
    assert.equal(parseRetryAfter(new Headers()), undefined);
  });

  it('sleeps until aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(sleep(10_000, controller.signal), APIUserAbortError);
    assert.ok(Date.now() - started < 1000);
  });
});

describe('request fingerprint', () => {
  it('does not depend on key order or undefined members', async () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } }),
      '{"a":{"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    const one = await requestFingerprint({ model: 'm', prompt: 'p', ratio: '1:1' });
    const two = await requestFingerprint({ ratio: '1:1', prompt: 'p', model: 'm', image: undefined });
    assert.equal(one, two);
    assert.match(one, /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(one, await requestFingerprint({ model: 'm', prompt: 'p', ratio: '9:16' }));
  });
});
