import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createSafeFetch, isPublicAddress } from '../../src/security/create-safe-fetch.ts';
import { FetchRefused, type SafeFetchOptions } from '../../src/security/safe-fetch.ts';

const LIMITS: SafeFetchOptions = {
  allowPrivate: true,
  timeoutMs: 2_000,
  maxBytes: 64 * 1024,
  maxRedirects: 3,
  what: 'image',
};

/**
 * Safety net: these tests must never send a packet beyond loopback, even if the fetcher regresses.
 * Every socket connect is recorded, and anything not aimed at loopback fails before it leaves.
 */
const connectHosts: string[] = [];
const originalConnect = net.Socket.prototype.connect;
before(() => {
  net.Socket.prototype.connect = function guarded(this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const opts = (Array.isArray(first) ? first[0] : first) as { host?: string; path?: string } | number;
    const host = typeof opts === 'object' ? (opts.path ?? opts.host ?? 'localhost') : String(args[1] ?? 'localhost');
    connectHosts.push(host);
    if (!['127.0.0.1', '::1', 'localhost'].includes(host)) throw new Error(`test guard: refused connect to ${host}`);
    return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;
});
after(() => {
  net.Socket.prototype.connect = originalConnect;
});

interface TestServer {
  origin: string;
  port: number;
  requests: http.IncomingMessage[];
  connections: number;
  close(): Promise<void>;
}

async function serve(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer((req, res) => {
    state.requests.push(req);
    handler(req, res);
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const state: TestServer = {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests: [],
    connections: 0,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return state;
}

async function refusal(promise: Promise<unknown>, code: FetchRefused['code']): Promise<FetchRefused> {
  const err = await promise.then(
    () => assert.fail(`expected ${code}, got a body`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof FetchRefused, `expected FetchRefused, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  return err;
}

describe('isPublicAddress', () => {
  it('accepts public unicast, including public IPv4 behind IPv6 embeddings', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '151.101.1.69',
      '2606:4700:4700::1111',
      '2a00:1450:4001::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      assert.equal(isPublicAddress(ip), true, ip);
    }
  });

  it('refuses every non-public range', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.255',
      '0.0.0.0',
      '0.1.2.3',
      '224.0.0.1',
      '239.1.1.1',
      '255.255.255.255',
      '240.0.0.1',
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.9',
      '198.18.0.1',
      '192.0.0.8',
      '::',
      '::1',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      'fec0::1',
      '2001:db8::1',
      '3fff::1',
      '2001:2::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '::7f00:1',
      '64:ff9b::a00:1',
      '64:ff9b:1::808:808',
      '2002:a00:1::1',
      '2002:7f00:1::',
      '2001:0:a00:1::',
      '2001:0:808:808::f5ff:fffe',
      'not-an-ip',
      '',
    ]) {
      assert.equal(isPublicAddress(ip), false, ip);
    }
  });

  it('still accepts 172.32/12 and 100.128/10 neighbours of private ranges', () => {
    assert.equal(isPublicAddress('172.32.0.1'), true);
    assert.equal(isPublicAddress('100.128.0.1'), true);
  });
});

// A regression in abort handling would hang a fetch; the timeout turns that into a failure.
describe('createSafeFetch', { timeout: 10_000 }, () => {
  const servers: TestServer[] = [];
  const start = async (handler: http.RequestListener) => {
    const s = await serve(handler);
    servers.push(s);
    return s;
  };
  after(() => Promise.all(servers.map((s) => s.close())));

  it('fetches from loopback when allowPrivate is set, with plain headers', async () => {
    const s = await start((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('pixels'));
    const body = await createSafeFetch(LIMITS)(`${s.origin}/a.png?x=1#frag`);
    assert.equal(body.bytes.toString(), 'pixels');
    assert.equal(body.contentType, 'image/png');
    assert.equal(body.finalUrl, `${s.origin}/a.png?x=1#frag`);
    const { headers, url } = s.requests[0];
    assert.equal(url, '/a.png?x=1');
    assert.equal(headers['user-agent'], 'vidgen-fetch/1');
    assert.equal(headers.cookie, undefined);
    assert.equal(headers.authorization, undefined);
  });

  it('refuses literal non-public hosts before connecting', async () => {
    const fetch = createSafeFetch({ ...LIMITS, allowPrivate: false });
    const s = await start((_req, res) => res.end('secret'));
    const targets = [
      `${s.origin}/`,
      `http://127.1:${s.port}/`,
      `http://2130706433:${s.port}/`,
      `http://0x7f.0.0.1:${s.port}/`,
      `http://0177.0.0.1:${s.port}/`,
      `http://[::1]:${s.port}/`,
      `http://[::ffff:127.0.0.1]:${s.port}/`,
      `http://0.0.0.0:${s.port}/`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'https://192.168.0.1/',
      'http://100.64.0.1/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[2002:a9fe:a9fe::]/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
    ];
    const before = connectHosts.length;
    for (const target of targets) {
      const err = await refusal(fetch(target), 'url_forbidden');
      assert.match(err.message, /not publicly routable/);
    }
    assert.equal(connectHosts.length, before, 'no socket was opened');
    assert.equal(s.connections, 0);
  });

  it('refuses a hostname that resolves to loopback, at connect time', async () => {
    const s = await start((_req, res) => res.end('secret'));
    const err = await refusal(
      createSafeFetch({ ...LIMITS, allowPrivate: false })(`http://localhost:${s.port}/`),
      'url_forbidden',
    );
    assert.equal(err.message, 'The image URL resolves to an address that is not publicly routable.');
    assert.equal(s.connections, 0);
  });

  it('follows redirects and reports the final URL', async () => {
    const s = await start((req, res) => {
      if (req.url === '/a') res.writeHead(301, { location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(307, { location: `${s.origin}/c` }).end();
      else res.end('done');
    });
    const body = await createSafeFetch(LIMITS)(`${s.origin}/a`);
    assert.equal(body.bytes.toString(), 'done');
    assert.equal(body.finalUrl, `${s.origin}/c`);
  });

  it('re-checks every redirect target', async () => {
    let target = '';
    const s = await start((_req, res) => res.writeHead(302, { location: target }).end());
    // Only our own test server is allowed, as a public host would be in production.
    const fetch = createSafeFetch({ ...LIMITS, allowPrivate: false }, (ip) => ip === '127.0.0.1');
    for (const forbidden of [
      'http://169.254.169.254/latest/meta-data/',
      `http://[::1]:${s.port}/`,
      'http://10.0.0.1/x',
    ]) {
      target = forbidden;
      const err = await refusal(fetch(`${s.origin}/start`), 'url_forbidden');
      assert.equal(err.message, "The image URL's redirect target points to an address that is not publicly routable.");
    }
    for (const invalid of ['file:///etc/passwd', 'gopher://127.0.0.1/', 'http://user:pw@127.0.0.1/']) {
      target = invalid;
      await refusal(fetch(`${s.origin}/start`), 'url_invalid');
    }
    assert.equal(s.connections, 6, 'only the first hop of each attempt connected');
  });

  it('stops after maxRedirects', async () => {
    const s = await start((req, res) => res.writeHead(302, { location: `${req.url}x` }).end());
    const err = await refusal(createSafeFetch(LIMITS)(`${s.origin}/r`), 'url_http_error');
    assert.match(err.message, /more than 3 times/);
    assert.equal(s.requests.length, 4);
  });

  it('refuses early on a Content-Length over the limit', async () => {
    const s = await start((_req, res) => {
      res.writeHead(200, { 'content-length': 10_000_000 });
      res.write(Buffer.alloc(100)); // then hang: only the header may decide
    });
    const started = Date.now();
    await refusal(createSafeFetch({ ...LIMITS, maxBytes: 1_000 })(`${s.origin}/big`), 'url_too_large');
    assert.ok(Date.now() - started < LIMITS.timeoutMs);
  });

  it('aborts a chunked body mid-stream once it passes the limit', async () => {
    let clientGone!: () => void;
    const gone = new Promise<void>((resolve) => (clientGone = resolve));
    const s = await start((_req, res) => {
      const timer = setInterval(() => res.write(Buffer.alloc(1024, 1)), 2);
      res.on('close', () => {
        clearInterval(timer);
        clientGone();
      });
    });
    await refusal(createSafeFetch({ ...LIMITS, maxBytes: 10_000 })(`${s.origin}/stream`), 'url_too_large');
    await gone;
  });

  it('times out on a server that never answers, and on one that stalls mid-body', async () => {
    const silent = await start(() => {});
    const stalling = await start((_req, res) => res.writeHead(200, { 'content-length': 100 }).write('12345'));
    const fetch = createSafeFetch({ ...LIMITS, timeoutMs: 150 });
    for (const s of [silent, stalling]) {
      const err = await refusal(fetch(`${s.origin}/slow`), 'url_timeout');
      assert.match(err.message, /150 ms/);
    }
  });

  it('maps a non-2xx answer to url_http_error with its status', async () => {
    const s = await start((_req, res) => res.writeHead(404).end('nope'));
    const err = await refusal(createSafeFetch(LIMITS)(`${s.origin}/missing.png`), 'url_http_error');
    assert.match(err.message, /404/);
  });

  it('refuses non-http schemes, credentials and non-URLs', async () => {
    const fetch = createSafeFetch(LIMITS);
    for (const url of [
      'ftp://127.0.0.1/a.png',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
      'gopher://127.0.0.1:70/',
      'not a url',
      '',
      'http://user:secret@127.0.0.1/',
      'http://:pw@127.0.0.1/',
    ]) {
      await refusal(fetch(url), 'url_invalid');
    }
  });

  it('reports an unreachable host without internals', async () => {
    const s = await serve(() => {});
    await s.close(); // the port is now closed
    const err = await refusal(createSafeFetch(LIMITS)(`${s.origin}/`), 'url_unreachable');
    assert.equal(err.message, 'The image URL could not be reached from the server.');
  });

  it('honours an external AbortSignal, before and during the fetch', async () => {
    const s = await start(() => {});
    const fetch = createSafeFetch(LIMITS);
    const early = new AbortController();
    early.abort(new Error('canceled early'));
    await assert.rejects(fetch(`${s.origin}/`, early.signal), /canceled early/);

    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(fetch(`${s.origin}/`, controller.signal), { name: 'AbortError' });
    assert.ok(Date.now() - started < LIMITS.timeoutMs);
  });
});
