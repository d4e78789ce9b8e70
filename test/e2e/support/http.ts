import assert from 'node:assert/strict';

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A thin JSON client for tests that check the wire itself (status codes, headers, bodies). */
export function api(baseUrl: string, key?: string) {
  async function call<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer<T>> {
    const init: RequestInit = { method, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(new URL(path, baseUrl), init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', path, body, headers),
    delete: <T = any>(path: string) => call<T>('DELETE', path),
    call,
  };
}

export type Api = ReturnType<typeof api>;

/** Task statuses of every dialect that never change again (a success may still expire). */
const ENDED = new Set(['failed', 'FAILURE', 'expired', 'cancelled', 'canceled']);

/**
 * Polls until `done(answer)` holds. No clock: a busy machine may take any time. It fails as soon
 * as the task has failed or expired where `done` wants something else (it would never hold), or, when
 * `limitMs` is given, after that long (for a test whose point is a bound).
 */
export async function pollUntil<T>(
  read: () => Promise<Answer<T>>,
  done: (a: Answer<T>) => boolean,
  limitMs?: number,
): Promise<Answer<T>> {
  const deadline = limitMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + limitMs;
  for (;;) {
    const answer = await read();
    if (done(answer)) return answer;
    const status = (answer.body as { status?: unknown } | undefined)?.status;
    const ended = typeof status === 'string' && ENDED.has(status);
    if (ended || Date.now() > deadline)
      throw new Error(
        `${ended ? 'the task ended' : 'timed out waiting'}; last answer ${answer.status} ${JSON.stringify(answer.body)}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Submits to a family-A route and polls until the task leaves `pending`; the task must end `done`. */
export async function finishedFamilyA(client: Api, path: string, body: unknown): Promise<any> {
  const submit = await client.post(path, body);
  assert.equal(submit.status, 200, JSON.stringify(submit.body));
  const done = await pollUntil(
    () => client.get(`/v1/videos/${submit.body.request_id}`),
    (a) => a.body.status !== 'pending',
  );
  assert.equal(done.body.status, 'done', JSON.stringify(done.body));
  return done.body;
}
