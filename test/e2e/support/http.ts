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

/** Polls a task until `done(body)` holds; fails the test after `timeoutMs`. */
export async function pollUntil<T>(
  read: () => Promise<Answer<T>>,
  done: (a: Answer<T>) => boolean,
  timeoutMs = 120_000,
): Promise<Answer<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await read();
    if (done(answer)) return answer;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting; last answer ${answer.status} ${JSON.stringify(answer.body)}`);
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
