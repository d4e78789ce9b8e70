/**
 * A stand-in for xAI's video API (api.x.ai), written from xAI's own clients, not from vidgen:
 * - xai-org/xai-sdk-python `src/xai_sdk/proto/v6/video_pb2.pyi`: GenerateVideoRequest takes prompt,
 *   image{url}, model, duration, video, aspect_ratio, resolution (480p | 720p); the answer is a
 *   request_id; GeneratedVideo has url, duration, respect_moderation; VideoResponse has usage and
 *   progress. `src/xai_sdk/sync/video.py`: statuses pending | done | expired.
 * - xai-org/xai-sdk-ts `src/resources/videos.ts`: POST /videos/generations, /videos/edits,
 *   /videos/extensions → {request_id}; GET /videos/{id} answers 202 while pending; `src/errors.ts`:
 *   error bodies `{code, error}` or `{error:{…}}`, 529 "overloaded".
 * So: no listing, no cancel, no Idempotency-Key, no `?wait=`; no seed. What it does not get it
 * defaults (480p, 16:9, 6 s — the SDK leaves them to the server); a bad key is a 400, as xAI answers.
 */
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import { LoopbackStandin, readJsonBody, type StandinMedia } from './standin-media.ts';
import { xaiInputProblem } from './xai-standin-inputs.ts';

const RATIOS: Record<string, [number, number]> = {
  '1:1': [1, 1],
  '16:9': [16, 9],
  '9:16': [9, 16],
  '4:3': [4, 3],
  '3:4': [3, 4],
  '3:2': [3, 2],
  '2:3': [2, 3],
};
const RESOLUTIONS: Record<string, number> = { '480p': 480, '720p': 720 };
const INVALID = 'Client specified an invalid argument';
const NOT_FOUND = 'Some requested entity was not found';

export interface XaiJob {
  id: string;
  kind: 'generation' | 'edit' | 'extension';
  body: Record<string, any>;
  width: number;
  height: number;
  seconds: number;
  polls: number;
  /** The render finished: xAI reports `done` only with its output there. */
  ready: boolean;
  moderated: boolean;
  file?: Promise<string>;
  url?: string;
}

export interface XaiStandinOptions {
  key: string;
  models: string[];
  /** Models that offer /videos/edits and /videos/extensions. */
  editModels?: string[];
  /** Polls answered `pending` before `done`. */
  pendingPolls?: number;
  /** USD ticks reported per second of video (xAI `usage.cost_in_usd_ticks`). */
  ticksPerSecond?: number;
}

export class XaiStandin extends LoopbackStandin {
  readonly jobs: XaiJob[] = [];
  readonly requests: Array<{ method: string; path: string; body?: any; headers: http.IncomingHttpHeaders }> = [];
  /** The next N creates answer 529 (nothing is queued). */
  overloaded = 0;
  /** The next N jobs finish moderated: `done`, `respect_moderation: false`, no URL. */
  moderateNext = 0;

  private constructor(
    server: http.Server,
    url: string,
    media: StandinMedia,
    private readonly o: XaiStandinOptions,
  ) {
    super(server, url, media);
  }

  static start(options: XaiStandinOptions): Promise<XaiStandin> {
    return LoopbackStandin.open((server, url, media) => new XaiStandin(server, url, media, options));
  }

  protected async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const read = await readJsonBody(req);
    if (read === 'invalid')
      return send(res, 400, { code: INVALID, error: 'Failed to deserialize the JSON body into the target type' });
    const body = read.body;
    this.requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', body, headers: req.headers });
    if (req.headers.authorization !== `Bearer ${this.o.key}`) {
      // xAI answers a wrong key with 400, not 401.
      return send(res, 400, {
        code: INVALID,
        error: 'Incorrect API key provided: xa***ey. You can obtain an API key from https://console.x.ai.',
      });
    }
    const create = /^\/v1\/videos\/(generations|edits|extensions)$/.exec(path);
    if (req.method === 'POST' && create)
      return this.create(res, create[1] as 'generations' | 'edits' | 'extensions', body ?? {});
    const get = /^\/v1\/videos\/([\w-]+)$/.exec(path);
    if (req.method === 'GET' && get) return this.poll(res, get[1]);
    // No listing (GET /v1/videos) and no cancel: xAI has neither.
    return send(res, 404, { code: NOT_FOUND, error: `No route for ${req.method} ${path}` });
  }

  private async create(
    res: http.ServerResponse,
    kind: 'generations' | 'edits' | 'extensions',
    body: Record<string, any>,
  ): Promise<void> {
    if (this.overloaded > 0) {
      this.overloaded--;
      return send(res, 529, {
        code: 'The service is currently unavailable',
        error: 'The service is overloaded, please try again later.',
      });
    }
    const model = body.model;
    const allowed = kind === 'generations' ? this.o.models : (this.o.editModels ?? []);
    if (typeof model !== 'string' || !allowed.includes(model)) {
      return send(res, 404, {
        code: NOT_FOUND,
        error: `The model ${String(model)} does not exist or your team does not have access to it.`,
      });
    }
    if (typeof body.prompt !== 'string' || !body.prompt.trim())
      return send(res, 400, { code: INVALID, error: 'prompt must not be empty' });
    const ratio = body.aspect_ratio ?? '16:9';
    const resolution = body.resolution ?? '480p';
    if (!RATIOS[ratio]) return send(res, 400, { code: INVALID, error: `Invalid aspect_ratio: ${String(ratio)}` });
    if (!RESOLUTIONS[resolution])
      return send(res, 400, { code: INVALID, error: `Invalid resolution: ${String(resolution)}` });
    if (body.image !== undefined && typeof body.image?.url !== 'string')
      return send(res, 400, { code: INVALID, error: 'image.url must be a string' });
    let seconds: number;
    let [width, height] = size(RATIOS[ratio], RESOLUTIONS[resolution]);
    if (kind === 'generations') {
      seconds = body.duration ?? 6;
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > 15)
        return send(res, 400, { code: INVALID, error: 'duration must be between 1 and 15' });
    } else {
      const input = await probeInput(body.video?.url);
      if (!input) return send(res, 400, { code: INVALID, error: 'video.url must be a reachable MP4 or a data URI' });
      [width, height] = [input.width, input.height];
      // An edit keeps the input's length; an extension adds `duration` seconds to it.
      const extra = body.duration ?? 6;
      seconds = kind === 'edits' ? input.seconds : input.seconds + extra;
    }
    const refused = xaiInputProblem(body, kind, seconds);
    if (refused) return send(res, 400, { code: INVALID, error: refused });
    const job: XaiJob = {
      id: randomUUID(),
      kind: kind === 'generations' ? 'generation' : kind === 'edits' ? 'edit' : 'extension',
      body,
      width,
      height,
      seconds,
      polls: 0,
      ready: false,
      moderated: this.moderateNext > 0 ? (this.moderateNext--, true) : false,
    };
    // `generate_audio` (xAI's flag for grok-imagine-video's sound): a video with a sound track.
    job.file = this.media.render(width, height, seconds, body.generate_audio === true);
    void job.file.then(() => (job.ready = true));
    this.jobs.push(job);
    send(res, 200, { request_id: job.id });
  }

  private async poll(res: http.ServerResponse, id: string): Promise<void> {
    const job = this.jobs.find((j) => j.id === id);
    if (!job) return send(res, 404, { code: NOT_FOUND, error: `Request ${id} not found` });
    if (job.polls++ < (this.o.pendingPolls ?? 1) || !job.ready)
      return send(res, 202, { status: 'pending', progress: Math.min(90, job.polls * 30) });
    const path = await job.file!;
    const usage = { cost_in_usd_ticks: job.seconds * (this.o.ticksPerSecond ?? 500_000_000) };
    if (job.moderated)
      return send(res, 200, {
        status: 'done',
        video: { url: '', duration: job.seconds, respect_moderation: false },
        model: job.body.model,
        usage,
      });
    job.url ??= this.media.link(path);
    send(res, 200, {
      status: 'done',
      video: { url: job.url, duration: job.seconds, respect_moderation: true },
      model: job.body.model,
      usage,
      progress: 100,
    });
  }
}

/** Even width and height for a ratio at a resolution named by the short side. */
function size([a, b]: [number, number], short: number): [number, number] {
  const even = (n: number) => Math.round(n / 2) * 2;
  return a >= b ? [even((short * a) / b), short] : [short, even((short * b) / a)];
}

/** Inputs arrive as data URIs from a relay; the stand-in reads their shape with ffprobe. */
async function probeInput(url: unknown): Promise<{ width: number; height: number; seconds: number } | undefined> {
  if (typeof url !== 'string' || !url.startsWith('data:video/mp4;base64,')) return undefined;
  const { probeDataUri } = await import('./standin-probe.ts');
  return probeDataUri(url);
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
