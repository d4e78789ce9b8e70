/**
 * A stand-in for a new-api gateway (QuantumNous/new-api) in front of one video provider, written
 * from new-api's code, not from vidgen:
 * - `relay/common/relay_info.go` TaskSubmitReq: prompt, model, mode, image, images, size, duration
 *   (number or string), seconds, input_reference, metadata. No `ratio`, no `seed` (unknown fields
 *   are ignored, as Go's decoder does); what is absent, the provider defaults.
 * - `relay/relay_task.go`: model mapping (`model_mapping_failed` 400), pricing (`model_price_error`
 *   400), then the provider call; a provider refusal comes back as `fail_to_fetch_task` with the
 *   provider's status; the task is recorded only after the provider accepted it. Fetch answers
 *   `{code: "success", data: TaskDto}`, unknown ids 400 `task_not_exist`.
 * - `dto/openai_video.go`: the submit answer (`id`, `task_id`, `object: "video"`, `status: "queued"`).
 * - `controller/video_proxy.go`: GET /v1/videos/{id}/content fetches the provider's result URL with a
 *   60 s limit and passes Range through; `router/video-router.go`: no listing of video tasks, no cancel.
 * - middleware: a bad token is 401 `{error:{message, type: "new_api_error"}}`; no channel for the
 *   model is 503 `model_not_found`, a channel lookup failure 500 `get_channel_failed`.
 */
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { LoopbackStandin, readJsonBody, sendFile, type StandinMedia } from './standin-media.ts';

/** What the provider behind this gateway renders; anything else it refuses. */
const SIZES = ['1280x720', '720x1280', '720x720', '960x720', '720x960', '1920x1080', '1080x1920', '320x180', '180x320'];

export interface NewApiTask {
  taskId: string;
  body: Record<string, any>;
  /**
   * What new-api keeps of the body and hands to its provider's adaptor: TaskSubmitReq's fields
   * only (relay/common/relay_info.go); Go's decoder drops every other field.
   */
  decoded: Record<string, any>;
  width: number;
  height: number;
  seconds: number;
  polls: number;
  /** The provider's render finished: SUCCESS only then. */
  ready: boolean;
  failReason?: string;
  file: Promise<string>;
  resultUrl?: string;
  /** With `steered`: the progress the provider reports, and whether the test let the render finish. */
  steer: { progress: number; done: boolean };
}

export interface NewApiStandinOptions {
  key: string;
  /** Model names this gateway has a channel for. */
  models: string[];
  pendingPolls?: number;
  /** The content proxy stops each answer after this many bytes (its 60 s limit, in bytes here). */
  proxyCutBytes?: number;
  /** Listen here (a gateway coming back after an outage keeps its address); any free port by default. */
  port?: number;
  /**
   * The test moves each task: it stays IN_PROGRESS at `steer.progress` until `steer.done`, instead
   * of following its poll count (a render whose every step a test can see, docs/streams.md's tests).
   */
  steered?: boolean;
}

export class NewApiStandin extends LoopbackStandin {
  readonly tasks: NewApiTask[] = [];
  readonly requests: Array<{ method: string; path: string; body?: any; headers: http.IncomingHttpHeaders }> = [];
  /** The next N submits: the distributor cannot get a channel (500 `get_channel_failed`). */
  channelFailures = 0;
  /** The next N submits: the operator's price config is missing (400 `model_price_error`). */
  priceErrors = 0;
  /** The next N tasks fail at the provider with this reason. */
  failNext: { count: number; reason: string } = { count: 0, reason: '' };
  /** The content proxy answers 502 (its provider fetch failed) while set. */
  proxyBroken = false;

  private constructor(
    server: http.Server,
    url: string,
    media: StandinMedia,
    private readonly o: NewApiStandinOptions,
  ) {
    super(server, url, media);
  }

  static start(options: NewApiStandinOptions): Promise<NewApiStandin> {
    return LoopbackStandin.open((server, url, media) => new NewApiStandin(server, url, media, options), options.port);
  }

  protected async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const read = await readJsonBody(req);
    if (read === 'invalid') return send(res, 400, taskError('invalid_request', 'invalid character in JSON body'));
    const body = read.body;
    this.requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', body, headers: req.headers });
    if (req.headers.authorization !== `Bearer ${this.o.key}`)
      return send(res, 401, { error: { message: 'Invalid token (无效的令牌)', type: 'new_api_error' } });
    if (req.method === 'POST' && path === '/v1/video/generations') return this.submit(res, body ?? {});
    const fetchId = /^\/v1\/video\/generations\/([\w-]+)$/.exec(path)?.[1];
    if (req.method === 'GET' && fetchId) return this.fetchTask(res, fetchId);
    const contentId = /^\/v1\/videos\/([\w-]+)\/content$/.exec(path)?.[1];
    if (req.method === 'GET' && contentId) return this.content(req, res, contentId);
    // gin's default: no route for listings or cancel.
    res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
  }

  private submit(res: http.ServerResponse, body: Record<string, any>): void {
    if (typeof body.model !== 'string' || !this.o.models.includes(body.model)) {
      return send(res, 503, {
        error: {
          message: `No available channel for model ${String(body.model)} under group default`,
          type: 'new_api_error',
          code: 'model_not_found',
        },
      });
    }
    if (this.channelFailures > 0) {
      this.channelFailures--;
      return send(res, 500, {
        error: { message: 'get channel failed', type: 'new_api_error', code: 'get_channel_failed' },
      });
    }
    if (this.priceErrors > 0) {
      this.priceErrors--;
      return send(res, 400, taskError('model_price_error', `model ${body.model} price not configured`));
    }
    if (typeof body.prompt !== 'string' || !body.prompt.trim())
      return send(res, 400, taskError('invalid_request', 'prompt is required'));
    const decoded = decodeTaskSubmitReq(body);
    if (typeof decoded === 'string') return send(res, 400, taskError('invalid_request', decoded));
    // TaskSubmitReq.UnmarshalJSON takes duration as a number or a string; `seconds` is a string.
    const seconds = Number(body.duration ?? body.seconds ?? 5);
    const size = typeof body.size === 'string' ? body.size : '720x720';
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 15 || !SIZES.includes(size)) {
      // The provider refused; new-api passes its status and body on as `fail_to_fetch_task`.
      return send(
        res,
        400,
        taskError(
          'fail_to_fetch_task',
          `{"error":"unsupported size ${size} or duration ${String(body.duration ?? body.seconds)}"}`,
        ),
      );
    }
    const [width, height] = size.split('x').map(Number);
    const task: NewApiTask = {
      taskId: `task_${randomBytes(16).toString('hex')}`,
      body,
      decoded,
      width,
      height,
      seconds,
      polls: 0,
      ready: false,
      file: this.media.render(width, height, seconds),
      steer: { progress: 0, done: false },
    };
    void task.file.then(() => (task.ready = true));
    if (this.failNext.count > 0) {
      this.failNext.count--;
      task.failReason = this.failNext.reason;
    }
    this.tasks.push(task);
    send(res, 200, {
      id: task.taskId,
      task_id: task.taskId,
      object: 'video',
      model: body.model,
      status: 'queued',
      progress: 0,
      created_at: Math.floor(Date.now() / 1000),
    });
  }

  private async fetchTask(res: http.ServerResponse, id: string): Promise<void> {
    const task = this.tasks.find((t) => t.taskId === id);
    if (!task) return send(res, 400, taskError('task_not_exist', 'task_not_exist'));
    task.polls++;
    const pending = this.o.steered
      ? !task.steer.done || !task.ready
      : task.polls <= (this.o.pendingPolls ?? 2) || !task.ready;
    const base = {
      task_id: task.taskId,
      action: 'generate',
      platform: '54',
      submit_time: 0,
      fail_reason: '',
      result_url: '',
      data: null,
    };
    if (pending)
      return send(res, 200, {
        code: 'success',
        message: '',
        data: {
          ...base,
          status: task.polls === 1 && !this.o.steered ? 'SUBMITTED' : 'IN_PROGRESS',
          progress: `${this.o.steered ? task.steer.progress : Math.min(95, task.polls * 30)}%`,
        },
      });
    if (task.failReason)
      return send(res, 200, {
        code: 'success',
        message: '',
        data: { ...base, status: 'FAILURE', progress: '100%', fail_reason: task.failReason },
      });
    task.resultUrl ??= this.media.link(await task.file);
    send(res, 200, {
      code: 'success',
      message: '',
      data: { ...base, status: 'SUCCESS', progress: '100%', result_url: task.resultUrl },
    });
  }

  /** VideoProxy: the provider's result URL, fetched with Range passed through, cut at the proxy's limit. */
  private async content(req: http.IncomingMessage, res: http.ServerResponse, id: string): Promise<void> {
    const task = this.tasks.find((t) => t.taskId === id);
    if (!task) return send(res, 404, { error: { message: 'Task not found', type: 'invalid_request_error' } });
    if (!task.resultUrl)
      return send(res, 400, {
        error: { message: 'Task is not completed yet, current status: IN_PROGRESS', type: 'invalid_request_error' },
      });
    if (this.proxyBroken)
      return send(res, 502, { error: { message: 'Failed to fetch video content', type: 'server_error' } });
    await sendFile(req, res, await task.file, this.o.proxyCutBytes);
  }
}

function taskError(code: string, message: string) {
  return { code, message, data: null };
}

const TASK_SUBMIT_FIELDS: Record<string, 'string' | 'strings' | 'duration' | 'metadata'> = {
  prompt: 'string',
  model: 'string',
  mode: 'string',
  image: 'string',
  images: 'strings',
  size: 'string',
  duration: 'duration',
  seconds: 'string',
  input_reference: 'string',
  metadata: 'metadata',
};

/**
 * TaskSubmitReq as Go decodes it (relay/common/relay_info.go, its UnmarshalJSON): the known fields
 * with their types (a wrong type is the decoder's error), `duration` a number or a string,
 * `metadata` an object or a JSON string of one; any other field is dropped without a word.
 */
function decodeTaskSubmitReq(body: Record<string, any>): Record<string, any> | string {
  const out: Record<string, any> = {};
  for (const [name, type] of Object.entries(TASK_SUBMIT_FIELDS)) {
    let v = body[name];
    if (v === undefined || v === null) continue;
    const bad = `json: cannot unmarshal ${typeof v} into Go struct field TaskSubmitReq.${name}`;
    if (type === 'string' && typeof v !== 'string') return bad;
    if (type === 'strings' && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) return bad;
    if (type === 'duration' && typeof v !== 'number' && typeof v !== 'string') return bad;
    if (type === 'metadata') {
      if (typeof v === 'string') v = JSON.parse(v);
      if (!v || typeof v !== 'object' || Array.isArray(v)) return bad;
    }
    out[name] = v;
  }
  return out;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
