/**
 * Brings a finished upstream video into the attempt's work dir; the engine then verifies and stores
 * it. Upstream links expire, so this runs as soon as the task is done. Every download is capped in
 * bytes and time and checked (status, content type, size, the MP4 `ftyp` box) before it counts.
 *
 * Trust follows the origin: a URL on the channel's own origin is as trusted as the operator's
 * config and is streamed with a plain fetch (with the key only for family B's content endpoint);
 * any other URL the upstream hands out (a CDN, a presigned bucket link) goes through the SSRF-safe
 * fetcher without the key (invariant 5, docs/architecture.md).
 */
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { TaskFailure } from '../../domain/task-failure.ts';
import { FetchRefused, type SafeFetch } from '../../security/safe-fetch.ts';
import type { RelayChannelConfig } from './relay-config.ts';
import { relayFailures } from './relay-failures.ts';
import { RelayAborted } from './relay-timing.ts';

export interface DownloadRequest {
  channel: RelayChannelConfig;
  /** Absolute, or a path on the channel. */
  url: string;
  /**
   * Send the channel's key (family B's and the OpenAI shape's content endpoint, Gemini's file links); only ever to the
   * channel's own origin.
   */
  withKey: boolean;
  dest: string;
  maxBytes: number;
  timeoutMs: number;
  fetchForeign: SafeFetch;
}

const VIDEO_TYPES = new Set(['video/mp4', 'application/mp4', 'application/octet-stream', 'binary/octet-stream']);
const MAX_REDIRECTS = 3;
/** Resumes of one download after a cut connection. */
const MAX_RESUMES = 20;

export async function downloadUpstreamVideo(req: DownloadRequest, signal: AbortSignal): Promise<void> {
  const origin = new URL(req.channel.baseUrl).origin;
  let url = new URL(req.url, req.channel.baseUrl + '/');
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (url.origin !== origin) return await viaSafeFetch(req, url.href, signal);
      const next = await streamTrusted(req, url, signal);
      if (!next) return;
      url = next;
    }
    throw relayFailures.download('too many redirects');
  } catch (err) {
    await rm(`${req.dest}.part`, { force: true });
    if (signal.aborted) throw new RelayAborted();
    throw err instanceof TaskFailure ? err : relayFailures.download('the connection failed');
  }
}

/**
 * Streams from the channel's origin; returns the next URL when redirected. A cut connection is
 * resumed with a Range request where the upstream honours it: new-api's content proxy stops each
 * answer after 60 s (controller/video_proxy.go) and passes Range through to its provider.
 */
async function streamTrusted(req: DownloadRequest, url: URL, signal: AbortSignal): Promise<URL | undefined> {
  const part = `${req.dest}.part`;
  let written = 0;
  for (let resumes = 0; ; resumes++) {
    const headers: Record<string, string> = req.withKey
      ? { ...req.channel.apiKey.headers(req.channel.authScheme), accept: 'video/mp4' }
      : { accept: 'video/mp4' };
    if (written > 0) headers.range = `bytes=${written}-`;
    const response = await fetch(url, {
      headers,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(req.timeoutMs)]),
    });
    const location = response.headers.get('location');
    if (written === 0 && response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      return new URL(location, url);
    }
    const expected = written === 0 ? firstAnswer(req, response) : resumedAnswer(response, written);
    if (!response.body) throw relayFailures.download('the answer had no body');
    // Each chunk is on disk before it counts, so a cut leaves exactly `total` bytes to resume from.
    let total = written;
    const file = await open(part, written > 0 ? 'a' : 'w');
    let cut = false;
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        if (total + chunk.length > req.maxBytes) throw relayFailures.tooLarge(req.maxBytes);
        await file.write(chunk);
        total += chunk.length;
      }
    } catch (err) {
      if (signal.aborted || err instanceof TaskFailure) throw err;
      cut = true;
    } finally {
      await file.close();
    }
    if (cut) {
      // Only a cut that made progress is worth resuming, and not forever.
      if (total <= written || resumes >= MAX_RESUMES) throw relayFailures.download('the connection failed');
      written = total;
      continue;
    }
    if (expected !== undefined && expected !== total) throw relayFailures.download('the file arrived incomplete');
    await finish(req.dest, total);
    return undefined;
  }
}

/** The whole file's length when declared. */
function firstAnswer(req: DownloadRequest, response: Response): number | undefined {
  checkAnswer(
    response.status,
    response.headers.get('content-type'),
    req.maxBytes,
    Number(response.headers.get('content-length') ?? NaN),
  );
  const declared = response.headers.get('content-length');
  return declared === null ? undefined : Number(declared);
}

/** A resumed answer must continue exactly where the file stopped: `206` with `Content-Range: bytes N-…/T`. */
function resumedAnswer(response: Response, from: number): number | undefined {
  const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
  if (response.status !== 206 || !range || Number(range[1]) !== from) {
    void response.body?.cancel();
    throw relayFailures.download('the upstream cut the download and cannot resume it');
  }
  return range[3] === '*' ? undefined : Number(range[3]);
}

async function viaSafeFetch(req: DownloadRequest, url: string, signal: AbortSignal): Promise<void> {
  let body;
  try {
    body = await req.fetchForeign(url, signal);
  } catch (err) {
    if (signal.aborted) throw new RelayAborted();
    if (err instanceof FetchRefused && err.code === 'url_too_large') throw relayFailures.tooLarge(req.maxBytes);
    // Provider links are deleted or stop being signed after a while (Replicate: an hour).
    if (err instanceof FetchRefused && (err.status === 404 || err.status === 410)) throw relayFailures.expired();
    if (err instanceof FetchRefused && (err.code === 'url_forbidden' || err.code === 'url_invalid')) {
      throw relayFailures.forbiddenLink();
    }
    throw relayFailures.download(
      err instanceof FetchRefused && err.code === 'url_timeout'
        ? 'it took too long'
        : 'the link did not answer with the video',
    );
  }
  checkAnswer(200, body.contentType, req.maxBytes, body.bytes.length);
  await writeFile(`${req.dest}.part`, body.bytes);
  await finish(req.dest, body.bytes.length, body.bytes);
}

function checkAnswer(status: number, contentType: string | null, maxBytes: number, length: number): void {
  if (status === 404 || status === 410) throw relayFailures.expired();
  if (status !== 200) throw relayFailures.download(`the upstream answered HTTP ${status}`);
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (!VIDEO_TYPES.has(type)) throw relayFailures.download('the answer is not a video');
  if (length > maxBytes) throw relayFailures.tooLarge(maxBytes);
}

/** Checks the MP4 signature (an `ftyp` box at byte 4), then moves the file into place. */
async function finish(dest: string, total: number, head?: Buffer): Promise<void> {
  const first = head ?? (await readHead(`${dest}.part`));
  if (total < 8 || first.subarray(4, 8).toString('latin1') !== 'ftyp')
    throw relayFailures.download('the file is not an MP4');
  await rename(`${dest}.part`, dest);
}

async function readHead(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(8);
    const { bytesRead } = await file.read(buffer, 0, 8, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}
