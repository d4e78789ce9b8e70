/**
 * A generated matrix of malformed requests over every endpoint: ids, filters, bodies,
 * multipart forms and headers a hostile or broken client might send. Each case is
 * one request; none of them may change anything or earn a 5xx.
 */
export interface HostileCase {
  name: string;
  method: string;
  /** Path and query exactly as sent (already percent-encoded where meant to be). */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** A Content-Length announced without sending the body (an oversized body the server refuses up front). */
  declaredLength?: number;
  /** Must be refused with a 4xx (a write whose refusal the test then checks left nothing behind). */
  refused?: boolean;
}

const MODELS = {
  A: 'vx-imagine-video-1.5-720p',
  B: 'video-v1-5s',
  edit: 'vx-imagine-video-edit',
  extend: 'vx-imagine-video-extend',
};

const HOSTILE_IDS = [
  '%00',
  'a%00b',
  '%00%00%00',
  'x'.repeat(500),
  '%zz',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '%F0%9F%98%80',
  '..%2F..%2Fetc%2Fpasswd',
  "'%20OR%201%3D1--",
  '%FF%FE',
  '%7B%7D',
  'a'.repeat(99),
  '%0D%0Aset-cookie:x',
  '0',
  '01890000-0000-7000-8000-000000000000',
  'file_%00',
  `file_${'y'.repeat(200)}`,
];

/** `Last-Event-ID`s no stream sent: a task stream's ids are whole numbers (docs/streams.md). */
const LAST_EVENT_IDS = ['-1', '1e5', '0x10', '1.5', '9'.repeat(40), 'x', '', ' ', '1,2', '%00'];

const ID_ROUTES: Array<[string, string]> = [
  ['GET', '/v1/videos/{id}'],
  ['POST', '/v1/videos/{id}/cancel'],
  ['GET', '/v1/video/generations/{id}'],
  ['POST', '/v1/video/generations/{id}/cancel'],
  ['GET', '/v1/videos/{id}/events'],
  ['GET', '/v1/video/generations/{id}/events'],
  ['GET', '/v1/videos/{id}/content'],
  ['HEAD', '/v1/videos/{id}/content'],
  ['GET', '/v1/files/{id}'],
  ['DELETE', '/v1/files/{id}'],
];

const NUMBERS = [
  '1e20',
  '1e308',
  '0.0000001',
  '-1',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e-400',
  '',
  '%00',
  '0x10',
  '9007199254740993',
  '1.5',
  ' 1',
  'abc',
];

const LIST_QUERIES = [
  ...NUMBERS.map((n) => `created_after=${n}`),
  ...NUMBERS.map((n) => `limit=${n}`),
  'after=%00',
  'after=a%00b',
  `after=${'z'.repeat(5000)}`,
  'after=a&after=b',
  'model=%00',
  'model=a&model=b',
  `model=${'m'.repeat(5000)}`,
  'idempotency_key=%00',
  'idempotency_key=a&idempotency_key=b',
  'status=%00',
  'status=constructor',
  'status=__proto__',
  'status=a&status=b',
  'created_after=1&created_after=2',
  'limit=1&limit=2',
  '__proto__[x]=1',
  'constructor=1',
  '%zz=1',
  'a=%zz',
  'created_after[]=1',
  'after[x]=1',
];

const POLL_QUERIES = [...NUMBERS.map((n) => `wait=${n}`), 'wait=1&wait=2', 'wait=%zz'];

const CONTENT_QUERIES = [
  'sig=%00&kid=%00&expires=1',
  'sig=x&kid=y&expires=1e308',
  'sig=x&kid=y&expires=abc',
  'sig=&kid=&expires=',
  `sig=${'s'.repeat(3000)}&kid=k&expires=99999999999`,
  'sig=a&sig=b&kid=k&expires=1',
  'sig=x',
  'variant=%00',
  'variant=a&variant=b',
];

function nested(depth: number, open: string, close: string, inner = '1'): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

/** JSON bodies for a create route of the given family; valid models so that hostile values reach the store. */
function submitBodies(model: string): Array<[string, string]> {
  const base = (extra: Record<string, unknown>) => JSON.stringify({ model, prompt: 'waves', ...extra });
  return [
    ['deep array', nested(20_000, '[', ']')],
    ['deep object', nested(20_000, '{"a":', '}')],
    ['deep in a field', `{"model":"${model}","prompt":"x","image":${nested(5_000, '{"url":', '}', '"u"')}}`],
    ['deep, moderate', nested(200, '[', ']')],
    ['deep mixed', nested(3000, '[{"a":', '}]')],
    ['truncated', '{"model":'],
    ['not json', 'model=x&prompt=y'],
    ['empty', ''],
    ['null', 'null'],
    ['array', '[]'],
    ['string', '"x"'],
    ['number', '1e999'],
    ['NUL prompt', base({ prompt: 'a\u0000b' })],
    ['NUL model', JSON.stringify({ model: `${model}\u0000`, prompt: 'x' })],
    ['NUL key', base({ '\u0000': 1 })],
    ['NUL image url', base({ image: { url: 'http://127.0.0.1/\u0000' }, images: undefined })],
    ['NUL image string', base({ image: 'http://127.0.0.1/a\u0000' })],
    ['NUL file id', base({ image: { file_id: 'file_\u0000' } })],
    ['NUL video id', base({ video: { request_id: '\u0000' } })],
    ['NUL video file', base({ video: { file_id: `file_${'\u0000'.repeat(300)}` } })],
    ['long video url', base({ video: { url: `http://127.0.0.1/${'v'.repeat(100_000)}` } })],
    ['NUL ratio', base({ aspect_ratio: '16:9\u0000', ratio: '16:9\u0000' })],
    ['lone surrogate', base({ prompt: '\ud800' })],
    ['__proto__', `{"model":"${model}","prompt":"x","__proto__":{"polluted":1}}`],
    ['constructor', base({ constructor: { prototype: { polluted: 1 } } })],
    ['huge duration', base({ duration: 1e308 })],
    ['negative duration', base({ duration: -1 })],
    ['fractional duration', base({ duration: 5.5 })],
    ['huge seed', base({ seed: 1e308 })],
    ['negative seed', base({ seed: -1 })],
    ['long prompt', base({ prompt: 'p'.repeat(200_000) })],
    ['long model', JSON.stringify({ model: 'm'.repeat(100_000), prompt: 'x' })],
    ['many images', base({ images: Array.from({ length: 5000 }, () => 'http://127.0.0.1/x.png') })],
    ['image javascript', base({ image: { url: 'javascript:alert(1)' } })],
    ['image file scheme', base({ image: 'file:///etc/passwd' })],
    ['image data bad', base({ image: { url: 'data:image/png;base64,%%%' } })],
    ['wrong types', JSON.stringify({ model: 1, prompt: [], duration: '5', image: 7, images: {} })],
    ['many keys', JSON.stringify(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])))],
    ['long key', `{"${'k'.repeat(100_000)}":1,"model":"${model}","prompt":"x"}`],
  ];
}

const IDEMPOTENCY_KEYS: Array<Record<string, string>> = [{}, { 'idempotency-key': 'hostile-1' }];
const ODD_KEYS: Array<Record<string, string>> = [
  { 'idempotency-key': '' },
  { 'idempotency-key': 'k'.repeat(300) },
  { 'idempotency-key': 'caf\u00e9' },
  { 'idempotency-key': 'a b' },
];

const SUBMITS: Array<[string, string]> = [
  ['/v1/videos/generations', MODELS.A],
  ['/v1/videos/edits', MODELS.edit],
  ['/v1/videos/extensions', MODELS.extend],
  ['/v1/video/generations', MODELS.B],
];

const CONTENT_TYPES = [
  'text/plain',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'application/json;;;',
  '',
];

const BOUNDARY = 'hostileBoundary';

function part(name: string, value: string | Buffer, filename?: string, type = 'image/png'): Buffer {
  const disposition = `form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}`;
  const head = `--${BOUNDARY}\r\ncontent-disposition: ${disposition}\r\n${filename === undefined ? '' : `content-type: ${type}\r\n`}\r\n`;
  return Buffer.concat([
    Buffer.from(head, 'latin1'),
    Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8'),
    Buffer.from('\r\n'),
  ]);
}
const END = Buffer.from(`--${BOUNDARY}--\r\n`);

function multipartCases(png: Buffer): Array<[string, Record<string, string>, Buffer]> {
  const form = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  const whole = (...parts: Buffer[]) => Buffer.concat([...parts, END]);
  return [
    ['no boundary', { 'content-type': 'multipart/form-data' }, whole(part('file', png, 'a.png'))],
    ['empty boundary', { 'content-type': 'multipart/form-data; boundary=' }, whole(part('file', png, 'a.png'))],
    ['wrong boundary', { 'content-type': 'multipart/form-data; boundary=other' }, whole(part('file', png, 'a.png'))],
    ['cut before the end', form, part('file', png, 'a.png').subarray(0, 200)],
    ['cut after the part', form, part('file', png, 'a.png')],
    ['only the end', form, END],
    ['empty body', form, Buffer.alloc(0)],
    ['garbage', form, Buffer.from('\u0000\u0001garbage\r\n\r\n--')],
    [
      'too many fields',
      form,
      whole(...Array.from({ length: 30 }, (_, i) => part(`f${i}`, 'v')), part('file', png, 'a.png')),
    ],
    ['two files', form, whole(part('file', png, 'a.png'), part('file', png, 'b.png'))],
    ['long purpose', form, whole(part('purpose', 'p'.repeat(51)), part('file', png, 'a.png'))],
    ['very long purpose', form, whole(part('purpose', 'p'.repeat(100_000)), part('file', png, 'a.png'))],
    ['NUL purpose', form, whole(part('purpose', 'vi\u0000sion'), part('file', png, 'a.png'))],
    ['control purpose', form, whole(part('purpose', 'a\r\nb'), part('file', png, 'a.png'))],
    ['purpose after file', form, whole(part('file', png, 'a.png'), part('purpose', '\u0000'))],
    ['NUL filename', form, whole(part('file', Buffer.from('not an image'), 'a\u0000.png'))],
    ['long filename', form, whole(part('file', Buffer.from('not an image'), 'f'.repeat(5000)))],
    ['wrong field', form, whole(part('upload', png, 'a.png'))],
    ['empty file', form, whole(part('file', Buffer.alloc(0), 'a.png'))],
    ['not an image', form, whole(part('file', Buffer.from('GIF89a....'), 'a.gif', 'image/gif'))],
    ['png header only', form, whole(part('file', png.subarray(0, 40), 'a.png'))],
    ['field, no file', form, whole(part('file', 'just text'))],
    [
      'no content-disposition',
      form,
      Buffer.concat([Buffer.from(`--${BOUNDARY}\r\ncontent-type: image/png\r\n\r\n`), png, Buffer.from('\r\n'), END]),
    ],
    ['json instead', { 'content-type': 'application/json' }, Buffer.from('{"file":"x"}')],
    [
      'deep json instead',
      { 'content-type': 'application/json', 'idempotency-key': 'k' },
      Buffer.from(nested(20_000, '[', ']')),
    ],
  ];
}

/** Every hostile case for one server; `png` is a valid image (so that only the hostile part can fail). */
export function hostileCases(png: Buffer): HostileCase[] {
  const cases: HostileCase[] = [];
  const json = { 'content-type': 'application/json' };
  for (const [method, template] of ID_ROUTES) {
    for (const id of HOSTILE_IDS)
      cases.push({ name: `${method} ${template} id=${id.slice(0, 20)}`, method, path: template.replace('{id}', id) });
  }
  for (const id of ['%00', 'a%00b', 'x'.repeat(500)]) {
    for (const [method, template] of ID_ROUTES.filter(([m]) => m === 'POST' || m === 'DELETE')) {
      cases.push({
        name: `${method} ${template} deep body`,
        method,
        path: template.replace('{id}', id),
        headers: { ...json, 'idempotency-key': 'k' },
        body: nested(20_000, '[', ']'),
      });
    }
  }
  for (const list of ['/v1/videos', '/v1/video/generations']) {
    for (const q of LIST_QUERIES)
      cases.push({ name: `list ${list}?${q.slice(0, 30)}`, method: 'GET', path: `${list}?${q}` });
  }
  for (const poll of ['/v1/videos/unknown', '/v1/video/generations/unknown']) {
    for (const q of POLL_QUERIES) cases.push({ name: `poll ${poll}?${q}`, method: 'GET', path: `${poll}?${q}` });
    for (const id of LAST_EVENT_IDS)
      cases.push({
        name: `stream ${poll} Last-Event-ID ${id.slice(0, 20)}`,
        method: 'GET',
        path: `${poll}/events`,
        headers: { 'last-event-id': id },
      });
  }
  for (const q of CONTENT_QUERIES) {
    for (const id of ['unknown', '%00'])
      cases.push({
        name: `content ?${q.slice(0, 30)}`,
        method: 'GET',
        path: `/v1/videos/${id}/content?${q}`,
        headers: { authorization: '' },
      });
  }
  for (const [path, model] of SUBMITS) {
    for (const [name, body] of submitBodies(model)) {
      for (const keys of IDEMPOTENCY_KEYS)
        cases.push({
          name: `submit ${path} ${name} ${keys['idempotency-key'] ?? ''}`,
          method: 'POST',
          path,
          headers: { ...json, ...keys },
          body,
        });
    }
    for (const keys of ODD_KEYS)
      cases.push({
        name: `submit ${path} key ${JSON.stringify(keys)}`,
        method: 'POST',
        path,
        headers: { ...json, ...keys },
        body: JSON.stringify({ model: 'no-such-model', prompt: 'x' }),
      });
    for (const type of CONTENT_TYPES)
      cases.push({
        name: `submit ${path} as ${type}`,
        method: 'POST',
        path,
        headers: type ? { 'content-type': type } : {},
        body: JSON.stringify({ model, prompt: 'x' }),
      });
    cases.push({
      name: `submit ${path} over the body limit`,
      method: 'POST',
      path,
      headers: json,
      declaredLength: 2 * 1024 * 1024,
    });
  }
  for (const [name, headers, body] of multipartCases(png)) {
    cases.push({ name: `files ${name}`, method: 'POST', path: '/v1/files', headers, body });
    cases.push({ name: `files ${name} (raw)`, method: 'POST', path: '/v1/files', headers, body });
  }
  cases.push({
    name: 'files over the upload limit',
    method: 'POST',
    path: '/v1/files',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    body: Buffer.concat([part('file', Buffer.concat([png, Buffer.alloc(2 * 1024 * 1024)]), 'a.png'), END]),
  });
  for (const auth of [
    'Bearer ',
    `Bearer ${'k'.repeat(8000)}`,
    'Basic eDp5',
    'Bearer \u00ff\u00fe',
    'bearer',
    'Bearer a b c',
  ]) {
    for (const path of ['/v1/models', '/v1/videos', '/v1/files/x'])
      cases.push({ name: `auth ${auth.slice(0, 12)} ${path}`, method: 'GET', path, headers: { authorization: auth } });
  }
  for (const path of [
    '/v1/models',
    '/v1/videos/generations',
    '/v1/video/generations/x',
    '/v1/files',
    '/metrics',
    '/nope',
  ]) {
    cases.push({ name: `huge header ${path}`, method: 'GET', path, headers: { 'x-pad': 'p'.repeat(64 * 1024) } });
    cases.push({
      name: `many headers ${path}`,
      method: 'GET',
      path,
      headers: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`x-h${i}`, 'v'])),
    });
    cases.push({ name: `bad header ${path}`, method: 'GET', path, headers: { 'x-bad': 'a\u0000b' } });
    cases.push({ name: `bad path encoding ${path}`, method: 'GET', path: `${path}%` });
    cases.push({ name: `long path ${path}`, method: 'GET', path: `${path}/${'s'.repeat(20_000)}` });
    cases.push({ name: `bad method ${path}`, method: 'PATCH', path });
  }
  cases.push({ name: 'absolute-form', method: 'GET', path: 'http://evil.example/v1/models' });
  cases.push({ name: 'asterisk', method: 'OPTIONS', path: '*' });
  return cases;
}
