/**
 * What the upstream stand-ins share: real MP4s of the shape a job asked for (rendered once per
 * shape with the shipped ffmpeg), and a "CDN" on an origin of its own that serves them the way
 * provider buckets do: plain GET with Range, links that can expire.
 */
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';

const run = promisify(execFile);

export class StandinMedia {
  private readonly renders = new Map<string, Promise<string>>();
  private readonly links = new Map<string, { path: string; expired: boolean }>();
  private expiredStatus = 403;
  /** While set, links are handed out already dead with this status (a result fetched too late). */
  expireLinks: 0 | 403 | 404 = 0;
  /** Every GET of a link, for assertions. */
  readonly fetched: string[] = [];

  private constructor(
    private readonly dir: string,
    private readonly server: http.Server,
    readonly cdnUrl: string,
  ) {}

  static async start(): Promise<StandinMedia> {
    const dir = await mkdtemp(join(tmpdir(), 'vidgen-standin-'));
    let media: StandinMedia | undefined;
    const server = http.createServer((req, res) => void media!.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    media = new StandinMedia(dir, server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return media;
  }

  /** An H.264 MP4 of this shape; rendered once per shape (the machine is small and shared). */
  render(width: number, height: number, seconds: number, audio = false): Promise<string> {
    const key = `${width}x${height}x${seconds}${audio ? 'a' : ''}`;
    let done = this.renders.get(key);
    if (!done) {
      const out = join(this.dir, `${key}.mp4`);
      const { ffmpeg } = resolveFfmpegBinaries({});
      done = run(ffmpeg, [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        `testsrc=size=${width}x${height}:rate=24:duration=${seconds}`,
        // With sound: a tone as long as the picture, AAC stereo, as a model with joint audio returns.
        ...(audio ? ['-f', 'lavfi', '-i', `sine=f=440:r=48000:d=${seconds}`, '-ac', '2', '-c:a', 'aac'] : []),
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        '-movflags',
        '+faststart',
        '-y',
        out,
      ]).then(() => out);
      this.renders.set(key, done);
    }
    return done;
  }

  /** A fresh link on the CDN origin. */
  link(path: string): string {
    const token = randomUUID();
    if (this.expireLinks) this.expiredStatus = this.expireLinks;
    this.links.set(token, { path, expired: this.expireLinks !== 0 });
    return `${this.cdnUrl}/v/${token}.mp4`;
  }

  /** Provider links die after a while: every link handed out so far now answers 403 (a signed URL past its time) or 404 (a deleted file). */
  expireAll(status: 403 | 404 = 403): void {
    this.expiredStatus = status;
    for (const link of this.links.values()) link.expired = true;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    await rm(this.dir, { recursive: true, force: true });
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.fetched.push(req.url ?? '');
    const token = /^\/v\/([\w-]+)\.mp4$/.exec(req.url ?? '')?.[1];
    const link = token ? this.links.get(token) : undefined;
    if (!link)
      return void res
        .writeHead(404, { 'content-type': 'application/xml' })
        .end('<Error><Code>NoSuchKey</Code></Error>');
    if (link.expired)
      return void res
        .writeHead(this.expiredStatus, { 'content-type': 'application/xml' })
        .end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
    await sendFile(req, res, link.path);
  }
}

/**
 * Serves a file with Range, as Go's http.ServeContent and S3 do; `cutAfter` closes the connection
 * after that many bytes of the body, as a proxy with a time limit does mid-transfer.
 */
export async function sendFile(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  path: string,
  cutAfter?: number,
): Promise<void> {
  const size = (await stat(path)).size;
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  const start = range ? Number(range[1]) : 0;
  const end = range && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
  if (range && start >= size) return void res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
  const headers: Record<string, string | number> = {
    'content-type': 'video/mp4',
    'accept-ranges': 'bytes',
    'content-length': end - start + 1,
  };
  if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  res.writeHead(range ? 206 : 200, headers);
  const last = cutAfter !== undefined ? Math.min(end, start + cutAfter - 1) : end;
  const stream = createReadStream(path, { start, end: last });
  stream.pipe(res, { end: last === end });
  // A FIN after the bytes written so far: the client sees a body shorter than its Content-Length.
  if (last !== end) stream.on('end', () => res.socket?.end());
}

/** Starts a stand-in's HTTP server on 127.0.0.1 (port 0: any free one); a handler that throws drops the connection. */
export async function listenOnLoopback(
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
  port = 0,
): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * An upstream stand-in: its own loopback listener, and a StandinMedia "CDN" for the videos it makes.
 * A subclass answers requests in `serve`; `close` ends both.
 */
export abstract class LoopbackStandin {
  protected constructor(
    protected readonly server: http.Server,
    readonly url: string,
    readonly media: StandinMedia,
  ) {}

  /** Starts the media server and the listener, then the stand-in `make` builds on them. */
  protected static async open<T extends LoopbackStandin>(
    make: (server: http.Server, url: string, media: StandinMedia) => T,
    port = 0,
  ): Promise<T> {
    const media = await StandinMedia.start();
    let standin: T | undefined;
    const { server, url } = await listenOnLoopback((req, res) => standin!.serve(req, res), port);
    standin = make(server, url, media);
    return standin;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    await this.media.close();
  }

  protected abstract serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
}

/** A request's JSON body (undefined when empty), or `'invalid'`: each stand-in refuses that in its service's own words. */
export async function readJsonBody(req: http.IncomingMessage): Promise<{ body: any } | 'invalid'> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return { body: chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined };
  } catch {
    return 'invalid';
  }
}
