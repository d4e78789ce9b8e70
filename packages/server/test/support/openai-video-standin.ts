/**
 * What the stand-ins of the OpenAI Videos shape servers share (vllm-omni-standin.ts,
 * sglang-standin.ts): jobs that render real MP4s, `GET /v1/videos/{id}` and `/content`, a 429 from
 * a gateway in front, failures, lost files, `openai-poll-after-ms`. Written from the servers' own
 * code (not from vidgen):
 * - **vLLM-Omni** (vllm-project/vllm-omni `docs/serving/videos_api.md`;
 *   `vllm_omni/entrypoints/openai/api_server.py` create_video, retrieve_video, delete_video,
 *   download_video; `vllm_omni/entrypoints/openai/protocol/videos.py` VideoResponse, SecondStr,
 *   SizeStr): the create takes FastAPI `Form` fields only (a JSON body is a 422 `{detail: [...]}`),
 *   ids are `video_gen_<hex>` (the docs' example shows `video-123`), `seconds` must match
 *   `^[1-9]\d*$`, frames = seconds × fps (24); `extra_params` and `lora` are JSON strings,
 *   `generate_sound` a flag; a failed run is `status: "failed"`, `error: {code: <exception name>,
 *   message}`; `DELETE` aborts a queued or running job and forgets it; content is 404 while running,
 *   422 after a failure, 404 "not found on disk" once the file is gone; `POST /v1/videos/sync`
 *   answers the MP4 bytes of a held request; with `--api-key`, a wrong key is 401 `{error: "Unauthorized"}`.
 * - **SGLang Diffusion** (sgl-project/sglang `python/sglang/multimodal_gen/runtime/entrypoints/openai/
 *   video_api.py`): JSON, or multipart that must carry an `input_reference` file (400 "input_reference
 *   file is required"); seconds 4 and size 720x1280 by default; `DELETE` only forgets the job
 *   (its source leaves aborting a job for later): the render goes on; content 404 "Generation is still
 *   in-progress" until the file exists (and after it is gone); errors `{detail}`; a failed run is
 *   `error: {message}` only.
 * Both run Wan-style models whose sides must be multiples of 16 (diffusers' Wan `check_inputs`
 * raises a ValueError in the generation task, so the job fails after it was accepted). Neither
 * honours Idempotency-Key or filters its listing. `pollAfterMs` makes a stand-in send
 * `openai-poll-after-ms` on pending answers, as OpenAI's own API and vidgen do (these two do not).
 */
import type http from 'node:http';
import { LoopbackStandin, sendFile, type StandinMedia } from './standin-media.ts';

export interface VideoJob {
  id: string;
  /** What the server read, form fields or JSON, files as `{file: <bytes>, type}`. */
  fields: Record<string, any>;
  encoding: 'json' | 'multipart';
  width: number;
  height: number;
  seconds: number;
  polls: number;
  ready: boolean;
  aborted: boolean;
  deleted: boolean;
  failure?: { code?: string; message: string };
  file: Promise<string>;
  path?: string;
}

export interface VideoStandinOptions {
  /** vLLM's `--api-key`; absent, any key is taken (its default). */
  key?: string;
  /** Polls answered `queued`/`in_progress` before `completed`. */
  pendingPolls?: number;
  /** Sides must be multiples of this (Wan: 16). */
  patch?: number;
  pollAfterMs?: number;
}

type Upload = { file: Buffer; type: string; name: string };

export abstract class VideoStandin extends LoopbackStandin {
  readonly jobs: VideoJob[] = [];
  readonly requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }> = [];
  /** The next N creates answer 429 (a gateway in front of the GPU server). */
  rateLimited = 0;
  /** The next N jobs fail in the model with this message. */
  failNext = { count: 0, message: '' };
  /** Renders that went on after their job was deleted (SGLang's DELETE does not abort). */
  orphanRenders = 0;

  protected constructor(
    server: http.Server,
    url: string,
    media: StandinMedia,
    protected readonly o: VideoStandinOptions,
  ) {
    super(server, url, media);
  }

  protected async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers });
    if (this.o.key && req.headers.authorization !== `Bearer ${this.o.key}`) return send(res, 401, this.unauthorized());
    if (req.method === 'POST' && path === '/v1/videos') {
      if (this.rateLimited > 0) {
        this.rateLimited--;
        return send(res, 429, { error: { message: 'Rate limit exceeded', type: 'rate_limit_error', code: 429 } });
      }
      return this.create(req, res);
    }
    if (req.method === 'POST' && path === '/v1/videos/sync') return this.sync(req, res);
    if (req.method === 'GET' && path === '/v1/videos')
      return send(res, 200, { object: 'list', data: this.jobs.filter((j) => !j.deleted).map((j) => this.video(j)) });
    const one = /^\/v1\/videos\/([\w-]+)(\/content)?$/.exec(path);
    const job = one ? this.jobs.find((j) => j.id === one[1] && !j.deleted) : undefined;
    if (!job) return send(res, 404, { detail: 'Video not found' });
    if (req.method === 'GET' && one![2]) return this.content(req, res, job);
    if (req.method === 'GET') {
      job.polls++;
      const video = this.video(job);
      if (this.o.pollAfterMs !== undefined && video.status !== 'completed' && video.status !== 'failed')
        res.setHeader('openai-poll-after-ms', String(this.o.pollAfterMs));
      return send(res, 200, video);
    }
    if (req.method === 'DELETE') return this.remove(res, job);
    send(res, 405, { detail: 'Method Not Allowed' });
  }

  protected abstract unauthorized(): unknown;
  protected abstract create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
  protected abstract remove(res: http.ServerResponse, job: VideoJob): Promise<void>;
  protected abstract video(job: VideoJob): Record<string, any>;

  protected sync(_req: http.IncomingMessage, res: http.ServerResponse): Promise<void> | void {
    send(res, 404, { detail: 'Not Found' });
  }

  protected status(job: VideoJob): 'queued' | 'in_progress' | 'completed' | 'failed' {
    if (job.polls <= 1) return 'queued';
    if (job.polls <= (this.o.pendingPolls ?? 2) || !job.ready) return 'in_progress';
    return job.failure ? 'failed' : 'completed';
  }

  /** Accepts the job (as both servers do once the request parses), then renders it; the model's own checks fail it later. */
  protected start(
    fields: Record<string, any>,
    encoding: VideoJob['encoding'],
    id: string,
    size: string,
    seconds: number,
  ) {
    const [width, height] = size.split('x').map(Number);
    const patch = this.o.patch ?? 16;
    const job: VideoJob = {
      id,
      fields,
      encoding,
      width,
      height,
      seconds,
      polls: 0,
      ready: false,
      aborted: false,
      deleted: false,
      file: this.media.render(width, height, seconds),
    };
    if (width % patch !== 0 || height % patch !== 0)
      job.failure = {
        code: 'ValueError',
        message: `\`height\` and \`width\` have to be divisible by ${patch} but are ${height} and ${width}.`,
      };
    else if (this.failNext.count > 0) {
      this.failNext.count--;
      job.failure = { code: 'RuntimeError', message: this.failNext.message };
    }
    void job.file.then(
      (p) => {
        job.ready = true;
        job.path = p;
        if (job.deleted && !job.aborted) this.orphanRenders++;
      },
      () => undefined,
    );
    this.jobs.push(job);
    return job;
  }

  protected async content(req: http.IncomingMessage, res: http.ServerResponse, job: VideoJob): Promise<void> {
    if (this.status(job) !== 'completed' || !job.path) {
      if (job.failure && this.status(job) === 'failed')
        return send(res, 422, { detail: 'Video generation failed. Check job status for error details.' });
      return send(res, 404, { detail: 'Generation is still in-progress' });
    }
    if (this.expired.has(job.id)) return send(res, 404, { detail: 'Generated video file not found on disk' });
    await sendFile(req, res, job.path);
  }

  private readonly expired = new Set<string>();

  /** Waits for renders still running (their ffmpeg processes) before the listener and media go. */
  async close(): Promise<void> {
    await Promise.allSettled(this.jobs.map((j) => j.file));
    await super.close();
  }

  /** The server's storage lost the file (retention, a restart without a volume). */
  expireFiles(): void {
    for (const j of this.jobs) this.expired.add(j.id);
  }
}

/** A multipart body as Starlette reads it: text fields as strings, files as their bytes; undefined when it is not multipart. */
export async function readForm(req: http.IncomingMessage): Promise<Record<string, any> | undefined> {
  const type = String(req.headers['content-type'] ?? '');
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (!type.toLowerCase().startsWith('multipart/form-data')) return undefined;
  const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': type } }).formData();
  const out: Record<string, any> = {};
  for (const [name, value] of form.entries())
    out[name] =
      typeof value === 'string'
        ? value
        : ({ file: Buffer.from(await value.arrayBuffer()), type: value.type, name: value.name } satisfies Upload);
  return out;
}

export function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
