/**
 * The SSRF-safe fetcher behind SafeFetch (invariant 5, docs/architecture.md).
 *
 * The address check runs inside the socket's own `lookup`, so the address we check is the address we
 * connect to: a DNS answer that changes between "check" and "connect" (rebinding) has no gap to slip
 * through. Literal IP hosts never reach `lookup` (net skips it), so they are checked up front, after
 * WHATWG URL parsing has already normalised decimal/octal/hex IPv4 and IPv4-mapped IPv6 forms.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { FetchRefused, type FetchedBody, type SafeFetch, type SafeFetchOptions, type SafePost } from './safe-fetch.ts';

/** Decides whether the server may open a connection to an IP address. */
export type AddressPolicy = (address: string) => boolean;

function subnets(family: 'ipv4' | 'ipv6', cidrs: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const cidr of cidrs) {
    const [address, bits] = cidr.split('/');
    list.addSubnet(address, Number(bits), family);
  }
  return list;
}

/** IPv4 ranges that are not public unicast (IANA special-purpose registry, RFC 6890). */
const V4_NOT_PUBLIC = subnets('ipv4', [
  '0.0.0.0/8', // "this network"; 0.0.0.0 reaches local listeners on most systems
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, where cloud metadata endpoints live
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation (TEST-NET-1)
  '192.88.99.0/24', // 6to4 relay anycast (deprecated)
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation (TEST-NET-2)
  '203.0.113.0/24', // documentation (TEST-NET-3)
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, including 255.255.255.255 broadcast
]);

/**
 * IPv6 is checked by allowlist, because its special ranges keep growing: only global unicast 2000::/3
 * passes, which already excludes ::, ::1, fc00::/7, fe80::/10, fec0::/10, ff00::/8, 100::/64 and
 * 64:ff9b:1::/48. These are the non-public ranges inside 2000::/3.
 */
const V6_GLOBAL_UNICAST = subnets('ipv6', ['2000::/3']);
const V6_NOT_PUBLIC = subnets('ipv6', [
  '2001:2::/48', // benchmarking
  '2001:10::/28', // ORCHID (identifiers, not routable)
  '2001:20::/28', // ORCHIDv2
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation (RFC 9637)
]);

const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;

/** IPv6 forms whose packets end up at an embedded IPv4 address; that IPv4 address decides. */
const V6_EMBEDDINGS: { prefix: net.BlockList; ipv4: (groups: number[]) => string[] }[] = [
  { prefix: subnets('ipv6', ['::ffff:0:0/96']), ipv4: (g) => [v4(g[6], g[7])] }, // IPv4-mapped
  { prefix: subnets('ipv6', ['64:ff9b::/96']), ipv4: (g) => [v4(g[6], g[7])] }, // NAT64 well-known prefix
  { prefix: subnets('ipv6', ['2002::/16']), ipv4: (g) => [v4(g[1], g[2])] }, // 6to4
  // Teredo: server address in clear, client address bit-inverted.
  { prefix: subnets('ipv6', ['2001::/32']), ipv4: (g) => [v4(g[2], g[3]), v4(g[6] ^ 0xffff, g[7] ^ 0xffff)] },
];

/** The eight 16-bit groups of an address that net.isIPv6 accepted. */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((hex) => parseInt(hex, 16)));
  const [head, tail] = text.split('::');
  if (tail === undefined) return parse(head);
  const [before, after] = [parse(head), parse(tail)];
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/** True only for public unicast addresses: what an image host on the internet resolves to. */
export function isPublicAddress(address: string): boolean {
  const ip = address.replace(/%.*$/, ''); // a zone id only ever accompanies link-local addresses
  if (net.isIPv4(ip)) return !V4_NOT_PUBLIC.check(ip, 'ipv4');
  if (!net.isIPv6(ip)) return false;
  const embedding = V6_EMBEDDINGS.find((e) => e.prefix.check(ip, 'ipv6'));
  if (embedding) return embedding.ipv4(ipv6Groups(ip)).every((inner) => !V4_NOT_PUBLIC.check(inner, 'ipv4'));
  return V6_GLOBAL_UNICAST.check(ip, 'ipv6') && !V6_NOT_PUBLIC.check(ip, 'ipv6');
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Plain and identity-encoded: no cookies or credentials ever leave, and the byte cap counts real bytes.
const REQUEST_HEADERS = {
  'user-agent': 'vidgen-fetch/1',
  accept: 'image/png, image/jpeg, */*;q=0.5',
  'accept-encoding': 'identity',
};
const TIMED_OUT = Symbol('safe-fetch timeout');

interface Hop {
  url: URL;
  /** Names the URL in messages; redirect targets are not the caller's own words. */
  label: string;
  policy: AddressPolicy;
  maxBytes: number;
  what: SafeFetchOptions['what'];
  signal: AbortSignal;
}

const notRoutable = (label: string, verb: string) =>
  new FetchRefused('url_forbidden', `${label} ${verb} an address that is not publicly routable.`);

export function parseTarget(raw: string, base: URL | undefined, label: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new FetchRefused('url_invalid', `${label} is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefused('url_invalid', `${label} must use http or https.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchRefused('url_invalid', `${label} must not contain credentials.`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(host) !== 0 && !policy(host)) throw notRoutable(label, 'points to');
  return url;
}

/** Resolves like the default lookup, but refuses the connection if any answer is not allowed. */
export function guardedLookup(label: string, policy: AddressPolicy): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      // All answers must pass: the socket may fall back to any of them (autoSelectFamily).
      if (!addresses.every((a) => policy(a.address))) return callback(notRoutable(label, 'resolves to'), '');
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

async function readBody(res: http.IncomingMessage, hop: Hop): Promise<FetchedBody> {
  const { url, maxBytes, what } = hop;
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 299) {
    throw new FetchRefused('url_http_error', `The ${what} URL answered with HTTP status ${status}.`, status);
  }
  const tooLarge = () =>
    new FetchRefused('url_too_large', `The ${what} at the URL is larger than ${maxBytes} bytes.`, undefined, maxBytes);
  if (Number(res.headers['content-length']) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(); // leaving the loop destroys the stream mid-body
    chunks.push(chunk);
  }
  return { bytes: Buffer.concat(chunks, total), contentType: res.headers['content-type'] ?? null, finalUrl: url.href };
}

/** One request; resolves with the body, or with the Location of a redirect to follow. */
function exchange(hop: Hop): Promise<FetchedBody | { location: string }> {
  return new Promise((resolve, reject) => {
    const client = hop.url.protocol === 'https:' ? https : http;
    const req = client.request(hop.url, {
      method: 'GET',
      headers: REQUEST_HEADERS,
      agent: false, // no pooled socket: every hop connects, and so is checked, afresh
      lookup: guardedLookup(hop.label, hop.policy),
    });
    let response: http.IncomingMessage | undefined;
    const abort = () => {
      const reason = new Error('aborted');
      response?.destroy(reason);
      req.destroy(reason);
    };
    const settle = (finish: () => void) => {
      hop.signal.removeEventListener('abort', abort);
      response?.destroy();
      finish();
    };
    hop.signal.addEventListener('abort', abort, { once: true });
    req.on('error', (err) => settle(() => reject(err)));
    req.on('response', (res) => {
      response = res;
      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(res.statusCode ?? 0) && location !== undefined) {
        settle(() => resolve({ location }));
        return;
      }
      readBody(res, hop).then(
        (body) => settle(() => resolve(body)),
        (err: unknown) => settle(() => reject(err)),
      );
    });
    req.end();
  });
}

async function followRedirects(raw: string, options: SafeFetchOptions, policy: AddressPolicy, signal: AbortSignal) {
  const { what } = options;
  const first = `The ${what} URL`;
  let hop: Hop = {
    url: parseTarget(raw, undefined, first, policy),
    label: first,
    policy,
    maxBytes: options.maxBytes,
    what,
    signal,
  };
  for (let redirects = 0; ; redirects++) {
    const result = await exchange(hop);
    if (!('location' in result)) return result;
    if (redirects >= options.maxRedirects) {
      throw new FetchRefused('url_http_error', `The ${what} URL redirected more than ${options.maxRedirects} times.`);
    }
    // Every hop gets the full check; an https→http downgrade is allowed only because it gets it too.
    const label = `The ${what} URL's redirect target`;
    hop = { ...hop, url: parseTarget(result.location, hop.url, label, policy), label };
  }
}

/** Turns whatever ended the fetch into a FetchRefused whose message is safe to show the caller. */
function explain(err: unknown, signal: AbortSignal, { timeoutMs, what }: SafeFetchOptions): unknown {
  if (err instanceof FetchRefused) return err;
  if (signal.aborted) {
    // An external abort is the caller's own decision: hand its reason back unchanged, as fetch() does.
    if (signal.reason !== TIMED_OUT) return signal.reason;
    return new FetchRefused('url_timeout', `The ${what} URL did not answer within ${timeoutMs} ms.`);
  }
  const code = String((err as NodeJS.ErrnoException | undefined)?.code ?? '');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') {
    return new FetchRefused('url_unreachable', `The ${what} URL's host name could not be resolved from the server.`);
  }
  if (/CERT|TLS|SSL/.test(code)) {
    return new FetchRefused(
      'url_unreachable',
      `The ${what} URL's TLS certificate could not be verified by the server.`,
    );
  }
  // Never the raw error: it can carry resolved addresses and socket details.
  return new FetchRefused('url_unreachable', `The ${what} URL could not be reached from the server.`);
}

/**
 * `policy` defaults to public-unicast-only, or to anything when `allowPrivate` is set; it is a parameter
 * so an operator allowlist (or a test) can narrow it without touching this file.
 */
export function createSafeFetch(
  options: SafeFetchOptions,
  policy: AddressPolicy = options.allowPrivate ? () => true : isPublicAddress,
): SafeFetch {
  return (url, signal) => withDeadline(options, signal, (deadline) => followRedirects(url, options, policy, deadline));
}

/**
 * POSTs a body (a webhook delivery) under the same address checks, time budget and byte cap on
 * the answer. A redirect is an answer like any other: following it would re-send a signed body
 * to a host the receiver's owner never registered.
 */
export function createSafePost(
  options: Omit<SafeFetchOptions, 'maxRedirects'>,
  policy: AddressPolicy = options.allowPrivate ? () => true : isPublicAddress,
): SafePost {
  const label = `The ${options.what} URL`;
  return (url, request, signal) =>
    withDeadline({ ...options, maxRedirects: 0 }, signal, (deadline) =>
      post(parseTarget(url, undefined, label, policy), label, policy, request, options.maxBytes, deadline),
    );
}

function post(
  url: URL,
  label: string,
  policy: AddressPolicy,
  request: { body: string; headers: Record<string, string> },
  maxBytes: number,
  signal: AbortSignal,
) {
  return new Promise<{ status: number }>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const body = Buffer.from(request.body, 'utf8');
    const req = client.request(url, {
      method: 'POST',
      headers: {
        'user-agent': 'vidgen-webhooks/1',
        'content-type': 'application/json',
        'content-length': String(body.length),
        ...request.headers,
      },
      agent: false,
      lookup: guardedLookup(label, policy),
      signal,
    });
    req.on('error', reject);
    req.on('response', (res) => statusOnly(res, maxBytes).then(resolve));
    req.end(body);
  });
}

/**
 * The status of an answer whose body is not used (a webhook's, an upload's): at most `maxBytes` of
 * the body is read, then the connection is hung up.
 */
export function statusOnly(res: http.IncomingMessage, maxBytes: number): Promise<{ status: number }> {
  return new Promise((resolve) => {
    const status = res.statusCode ?? 0;
    let seen = 0;
    res.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) res.destroy();
    });
    res.on('close', () => resolve({ status }));
    res.on('error', () => resolve({ status }));
  });
}

export async function withDeadline<T>(
  options: SafeFetchOptions,
  signal: AbortSignal | undefined,
  run: (deadline: AbortSignal) => Promise<T>,
): Promise<T> {
  signal?.throwIfAborted();
  const deadline = new AbortController();
  // One budget for the whole fetch, redirects included, so a slow chain cannot add up past it.
  const timer = setTimeout(() => deadline.abort(TIMED_OUT), options.timeoutMs);
  const forward = () => deadline.abort(signal?.reason);
  signal?.addEventListener('abort', forward, { once: true });
  try {
    return await run(deadline.signal);
  } catch (err) {
    throw explain(err, deadline.signal, options);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}
