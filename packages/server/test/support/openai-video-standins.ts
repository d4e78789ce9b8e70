/**
 * Stand-ins for two open-model inference servers that serve the OpenAI Videos shape, written from
 * their own code (not from vidgen):
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
 *   ("TODO: support aborting a job"): the render goes on; content 404 "Generation is still
 *   in-progress" until the file exists (and after it is gone); errors `{detail}`; a failed run is
 *   `error: {message}` only.
 * Both run Wan-style models whose sides must be multiples of 16 (diffusers' Wan `check_inputs`
 * raises a ValueError in the generation task, so the job fails after it was accepted). Neither
 * honours Idempotency-Key or filters its listing. `pollAfterMs` makes a stand-in send
 * `openai-poll-after-ms` on pending answers, as OpenAI's own API and vidgen do (these two do not).
 */
import type http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
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

abstract class VideoStandin extends LoopbackStandin {
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

  /** The server's storage lost the file (retention, a restart without a volume). */
  expireFiles(): void {
    for (const j of this.jobs) this.expired.add(j.id);
  }
}

export class VllmOmniStandin extends VideoStandin {
  /** Calls of `/v1/videos/sync` (the relay never makes one). */
  syncCalls = 0;

  static start(o: VideoStandinOptions = {}): Promise<VllmOmniStandin> {
    return LoopbackStandin.open((server, url, media) => new VllmOmniStandin(server, url, media, o));
  }

  protected unauthorized(): unknown {
    return { error: 'Unauthorized' };
  }

  /** FastAPI Form fields: the same validation for the async create and for `/sync`. */
  private async readForm(req: http.IncomingMessage): Promise<Record<string, any> | { detail: unknown }> {
    const form = await readForm(req);
    if (!form) return { detail: [{ type: 'missing', loc: ['body', 'prompt'], msg: 'Field required', input: null }] };
    if (typeof form.prompt !== 'string')
      return { detail: [{ type: 'missing', loc: ['body', 'prompt'], msg: 'Field required', input: null }] };
    if (form.seconds !== undefined && !/^[1-9]\d*$/.test(form.seconds))
      return {
        detail: [
          {
            type: 'string_pattern_mismatch',
            loc: ['body', 'seconds'],
            msg: "String should match pattern '^[1-9]\\d*$'",
          },
        ],
      };
    if (form.size !== undefined && !/^\d+x\d+$/.test(form.size))
      return {
        detail: [
          { type: 'string_pattern_mismatch', loc: ['body', 'size'], msg: "String should match pattern '^\\d+x\\d+$'" },
        ],
      };
    for (const name of ['extra_params', 'lora', 'image_reference'])
      if (typeof form[name] === 'string') {
        try {
          form[name] = JSON.parse(form[name]);
        } catch {
          return { detail: 'Invalid JSON in form field.' };
        }
      }
    return form;
  }

  protected async create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const form = await this.readForm(req);
    if ('detail' in form) return send(res, typeof form.detail === 'string' ? 400 : 422, form);
    // num_frames = seconds × fps: the clip lasts `seconds` at whatever fps was asked.
    const id = `video_gen_${randomBytes(16).toString('hex')}`;
    const job = this.start(form, 'multipart', id, form.size ?? '1280x720', Number(form.seconds ?? 4));
    send(res, 200, this.video(job));
  }

  protected async sync(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.syncCalls++;
    const form = await this.readForm(req);
    if ('detail' in form) return send(res, 422, form);
    const [w, h] = String(form.size ?? '1280x720')
      .split('x')
      .map(Number);
    await sendFile(req, res, await this.media.render(w, h, Number(form.seconds ?? 4)));
  }

  protected async remove(res: http.ServerResponse, job: VideoJob): Promise<void> {
    // Queued or running: a bounded engine abort (VLLM_OMNI_ABORT_TIMEOUT), then the record is popped.
    if (this.status(job) !== 'completed' && this.status(job) !== 'failed') job.aborted = true;
    job.deleted = true;
    send(res, 200, { id: job.id, object: 'video.deleted', deleted: true });
  }

  protected video(job: VideoJob): Record<string, any> {
    const status = this.status(job);
    return {
      id: job.id,
      object: 'video',
      model: job.fields.model ?? 'Wan-AI/Wan2.2-T2V-A14B-Diffusers',
      prompt: job.fields.prompt,
      status,
      size: `${job.width}x${job.height}`,
      progress: status === 'completed' ? 100 : 0,
      seconds: String(job.seconds),
      quality: 'default',
      completed_at: status === 'completed' || status === 'failed' ? Math.floor(Date.now() / 1000) : null,
      created_at: Math.floor(Date.now() / 1000),
      remixed_from_video_id: null,
      error: status === 'failed' ? job.failure : null,
      media_type: 'video/mp4',
      expires_at: null,
      file_name: status === 'completed' ? `${job.id}.mp4` : null,
      inference_time_s: status === 'completed' ? job.seconds * 1.7 : null,
      stage_durations: {},
      peak_memory_mb: 0,
    };
  }
}

export class SglangStandin extends VideoStandin {
  static start(o: VideoStandinOptions = {}): Promise<SglangStandin> {
    return LoopbackStandin.open((server, url, media) => new SglangStandin(server, url, media, o));
  }

  protected unauthorized(): unknown {
    return { error: 'Unauthorized' };
  }

  protected async create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const multipart = String(req.headers['content-type'] ?? '')
      .toLowerCase()
      .includes('multipart/form-data');
    let fields: Record<string, any>;
    if (multipart) {
      fields = (await readForm(req)) ?? {};
      if (!fields.prompt) return send(res, 400, { detail: 'prompt is required' });
      if (!fields.input_reference?.file) return send(res, 400, { detail: 'input_reference file is required' });
    } else {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      try {
        fields = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        fields = {};
      }
      if (fields.extra_body && typeof fields.extra_body === 'object') Object.assign(fields, fields.extra_body);
      if (typeof fields.prompt !== 'string')
        return send(res, 400, {
          detail: 'Invalid request body: 1 validation error for VideoGenerationsRequest\nprompt\n  Field required',
        });
    }
    const job = this.start(
      fields,
      multipart ? 'multipart' : 'json',
      randomUUID(),
      fields.size ?? '720x1280',
      Number(fields.seconds ?? 4),
    );
    send(res, 200, this.video(job));
  }

  protected async remove(res: http.ServerResponse, job: VideoJob): Promise<void> {
    // Only the record goes; the scheduler keeps rendering (no abort in its video_api.py).
    job.deleted = true;
    send(res, 200, { ...this.video(job), status: 'deleted' });
  }

  protected video(job: VideoJob): Record<string, any> {
    const status = this.status(job);
    return {
      id: job.id,
      object: 'video',
      model: job.fields.model ?? 'sora-2',
      status,
      progress: status === 'completed' ? 100 : 0,
      created_at: Math.floor(Date.now() / 1000),
      size: `${job.width}x${job.height}`,
      seconds: String(job.seconds),
      quality: 'standard',
      ...(status === 'completed' ? { completed_at: Math.floor(Date.now() / 1000) } : {}),
      ...(status === 'failed' ? { error: { message: job.failure!.message } } : {}),
    };
  }
}

/** A multipart body as Starlette reads it: text fields as strings, files as their bytes; undefined when it is not multipart. */
async function readForm(req: http.IncomingMessage): Promise<Record<string, any> | undefined> {
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

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
