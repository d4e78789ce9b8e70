import type { HostileCase } from './hostile-matrix.ts';

/**
 * The write routes a refusal must leave untouched: the admin API's amounts and limits (each a safe
 * integer within its column) and the multipart creates whose video part is stored before the form
 * is checked. Every case here must be refused (`refused: true`): the test then checks that no
 * account, plan, ledger entry, price group, quota, task, file row or blob was written.
 */

/** Numbers as sent on the wire: literal JSON text, so 2^64 is not rounded before it leaves. */
const HUGE = ['1e308', '9007199254740992', '9223372036854775808', '18446744073709551616', '1e29'];
const OVER_INT32 = ['2147483648', '9007199254740991', '1e308'];
const NOT_POSITIVE = ['0', '-1', '1.5'];

/** The account every PATCH goes to: it exists, so a refused change is what is tested, not a 404. */
export const HOSTILE_ACCOUNT = 'hostile';

function adminBodies(): Array<[string, string]> {
  const cases: Array<[string, string]> = [];
  const create = (name: string, fields: string) => cases.push([name, `{"id":"left-${cases.length}",${fields}}`]);
  for (const n of [...HUGE, '-1', '1.5']) create(`credits ${n}`, `"credits_usd_ticks":${n}`);
  for (const limit of ['requests_per_minute', 'max_active_tasks'])
    for (const n of [...OVER_INT32, ...NOT_POSITIVE]) create(`${limit} ${n}`, `"limits":{"${limit}":${n}}`);
  for (const limit of ['max_task_usd_ticks', 'max_daily_usd_ticks'])
    for (const n of [...HUGE, ...NOT_POSITIVE]) create(`${limit} ${n}`, `"limits":{"${limit}":${n}}`);
  for (const n of [...HUGE, ...NOT_POSITIVE]) create(`alert ${n}`, `"balance_alert_usd_ticks":${n}`);
  for (const group of ['""', '"no-such-group"', `"${'g'.repeat(65)}"`])
    create(`price_group ${group}`, `"price_group":${group}`);
  // A valid grant with a refused field: the account, its plan and its grant are one transaction.
  create('credits and a bad limit', '"credits_usd_ticks":1000,"limits":{"max_active_tasks":2147483648}');
  create('credits and an unknown group', '"credits_usd_ticks":1000,"price_group":"no-such-group"');
  create('credits and a bad alert', '"credits_usd_ticks":1000,"balance_alert_usd_ticks":0');
  create('unknown model', '"models":["no-such-model"],"credits_usd_ticks":5');
  return cases;
}

function patchBodies(): Array<[string, string]> {
  const cases: Array<[string, string]> = [];
  for (const limit of ['requests_per_minute', 'max_active_tasks'])
    for (const n of [...OVER_INT32, ...NOT_POSITIVE]) cases.push([`${limit} ${n}`, `{"limits":{"${limit}":${n}}}`]);
  for (const limit of ['max_task_usd_ticks', 'max_daily_usd_ticks'])
    for (const n of HUGE) cases.push([`${limit} ${n}`, `{"limits":{"${limit}":${n}}}`]);
  for (const n of [...HUGE, '0']) cases.push([`alert ${n}`, `{"balance_alert_usd_ticks":${n}}`]);
  for (const group of ['""', '"no-such-group"']) cases.push([`price_group ${group}`, `{"price_group":${group}}`]);
  cases.push(['metered and a bad limit', '{"metered":true,"limits":{"requests_per_minute":2147483648}}']);
  return cases;
}

/** Every admin write with a value it must refuse, sent with the admin token. */
export function adminWriteCases(adminToken: string): HostileCase[] {
  const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const cases: HostileCase[] = [];
  const add = (name: string, method: string, path: string, body: string) =>
    cases.push({ name: `admin ${method} ${path} ${name}`, method, path, headers, body, refused: true });
  for (const [name, body] of adminBodies()) add(name, 'POST', '/admin/v1/accounts', body);
  for (const [name, body] of patchBodies()) add(name, 'PATCH', `/admin/v1/accounts/${HOSTILE_ACCOUNT}`, body);
  for (const n of [...HUGE, '-9223372036854775808', '0', '1.5'])
    add(
      `amount ${n}`,
      'POST',
      `/admin/v1/accounts/${HOSTILE_ACCOUNT}/credits`,
      `{"amount_usd_ticks":${n},"reason":"x","metered":true}`,
    );
  for (const [name, body] of [
    ['ratio 1e308', '{"ratio":1e308}'],
    ['ratio -1', '{"ratio":-1}'],
    ['price 1e308', '{"models":{"video-v1-5s":1e308}}'],
    ['price 2^64', '{"models":{"video-v1-5s":18446744073709551616}}'],
    ['price -1', '{"models":{"video-v1-5s":-1}}'],
  ])
    add(name, 'PUT', '/admin/v1/price-groups/hostile-group', body);
  add('long id', 'PUT', `/admin/v1/price-groups/${'g'.repeat(65)}`, '{"ratio":1}');
  for (const n of HUGE)
    add(
      `refund ${n}`,
      'POST',
      '/admin/v1/tasks/01890000-0000-7000-8000-000000000000/refund',
      `{"amount_usd_ticks":${n},"reason":"x"}`,
    );
  return cases;
}

const BOUNDARY = 'hostileWrites';

function field(name: string, value: string): Buffer {
  return Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
}

function filePart(name: string, bytes: Buffer, type: string): Buffer {
  const head = `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"; filename="${name}.bin"\r\n`;
  return Buffer.concat([Buffer.from(`${head}content-type: ${type}\r\n\r\n`), bytes, Buffer.from('\r\n')]);
}

/**
 * Multipart creates of the OpenAI shape that carry an MP4 part and must be refused: the part is
 * stored while the form is read, so each refusal must remove it again.
 */
export function multipartWriteCases(mp4: Buffer, png: Buffer): HostileCase[] {
  const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  const video = filePart('video', mp4, 'video/mp4');
  const forms: Array<[string, string, Buffer[]]> = [
    ['/v1/videos', 'MP4 as the first frame', [field('prompt', 'waves'), filePart('input_reference', mp4, 'video/mp4')]],
    ['/v1/videos', 'MP4 and seconds=1e308', [field('prompt', 'waves'), field('seconds', '1e308'), video]],
    ['/v1/videos/edits', 'no prompt', [video]],
    ['/v1/videos/edits', 'a duplicated field', [field('prompt', 'a'), field('prompt', 'b'), video]],
    ['/v1/videos/edits', 'a field after the video, twice', [video, field('model', 'sora-2'), field('model', 'x')]],
    ['/v1/videos/edits', 'an unknown model', [field('prompt', 'night'), field('model', 'no-such-model'), video]],
    ['/v1/videos/edits', 'a bad webhook_url', [field('prompt', 'night'), field('webhook_url', 'not a url'), video]],
    [
      '/v1/videos/edits',
      'a loopback webhook_url',
      [field('prompt', 'x'), field('webhook_url', 'http://127.0.0.1/'), video],
    ],
    ['/v1/videos/edits', 'a video that is not an MP4', [field('prompt', 'night'), filePart('video', png, 'video/mp4')]],
    ['/v1/videos/extensions', 'seconds=1e308', [field('prompt', 'more'), field('seconds', '1e308'), video]],
    ['/v1/videos/extensions', 'no prompt', [field('seconds', '4'), video]],
    ['/v1/videos/extensions', 'the part and an id', [field('prompt', 'more'), field('video[id]', 'video_0'), video]],
  ];
  return forms.map(([path, name, parts]) => ({
    name: `form ${path} ${name}`,
    method: 'POST',
    path,
    headers,
    body: Buffer.concat([...parts, Buffer.from(`--${BOUNDARY}--\r\n`)]),
    refused: true,
  }));
}
