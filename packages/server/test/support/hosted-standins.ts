/**
 * Stand-ins for two hosted inference APIs, written from their public protocols (not from vidgen):
 * - fal queue API (docs.fal.ai/documentation/model-apis/inference/queue; fal-ai/fal-js
 *   `libs/client/src/queue.ts`): POST queue.fal.run/{model_id} → {request_id, response_url,
 *   status_url, cancel_url}; GET /{app}/requests/{id}/status → 202 IN_QUEUE (queue_position) |
 *   IN_PROGRESS (logs), 200 COMPLETED (metrics); GET /{app}/requests/{id} → the output
 *   ({video: {url, content_type, file_size}}), 400 while running; PUT …/cancel → 202
 *   CANCELLATION_REQUESTED or 400 ALREADY_COMPLETED; `Authorization: Key …`; 422 `{detail: [...]}`.
 * - Replicate (replicate.com/docs/reference/http; replicate/replicate-javascript `lib/predictions.js`):
 *   POST /v1/models/{owner}/{name}/predictions {input} or /v1/predictions {version, input} → 201
 *   prediction (starting); GET /v1/predictions/{id} → processing → succeeded (output URL, metrics)
 *   | failed (error) | canceled; POST …/cancel; problem bodies `{title, detail, status}`; 429 with
 *   Retry-After; `Prefer: wait` holds the create until done; output files are deleted after an hour.
 * Neither honours Idempotency-Key or lists requests by anything the client sent.
 */
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import { LoopbackStandin, readJsonBody, type StandinMedia } from './standin-media.ts';

const SHAPES: Record<string, [number, number]> = { '16:9': [1280, 720], '9:16': [720, 1280], '1:1': [720, 720] };

export interface HostedJob {
  id: string;
  model: string;
  input: Record<string, any>;
  width: number;
  height: number;
  seconds: number;
  polls: number;
  canceled: boolean;
  /** The render finished: only then can the job be done (as upstream, where output exists before completion). */
  ready: boolean;
  failReason?: string;
  file: Promise<string>;
  url?: string;
}

interface Options {
  key: string;
  /** Model ids (fal: the full endpoint id; Replicate: owner/name) this host runs: 720p, 5 or 10 s. */
  models: string[];
  pendingPolls?: number;
  /**
   * The media inputs of the model's input schema (a fal model's Pydantic input, a Replicate
   * model's OpenAPI schema): `url` a URL or data URI string, `urls` a list of them (at most 4),
   * `keyframes` a list of `{image_url, timestamp_s}`. A wrong type is the model's 422; fields the
   * schema does not name are ignored, as Pydantic and Cog ignore them.
   */
  schema?: Record<string, 'url' | 'urls' | 'keyframes'>;
}

const isMedia = (v: unknown) => typeof v === 'string' && /^(https?:\/\/|data:[\w.+-]+\/[\w.+-]+;base64,)/.test(v);

/** Why the model's schema refuses these media inputs, or undefined. */
function mediaProblem(schema: Options['schema'], input: Record<string, any>): string | undefined {
  for (const [name, type] of Object.entries(schema ?? {})) {
    const v = input[name];
    if (v === undefined) continue;
    if (type === 'url' && !isMedia(v)) return `${name}: must be a URL or a data URI`;
    if (type === 'urls' && !(Array.isArray(v) && v.length <= 4 && v.every(isMedia)))
      return `${name}: must be a list of at most 4 URLs or data URIs`;
    if (
      type === 'keyframes' &&
      !(Array.isArray(v) && v.every((k) => isMedia(k?.image_url) && typeof k?.timestamp_s === 'number'))
    )
      return `${name}: must be a list of {image_url, timestamp_s}`;
  }
  return undefined;
}

abstract class HostedStandin extends LoopbackStandin {
  readonly jobs: HostedJob[] = [];
  readonly requests: Array<{ method: string; path: string; body?: any; headers: http.IncomingHttpHeaders }> = [];
  /** The next N creates answer 429. */
  rateLimited = 0;
  /** The next N jobs fail in the model with this reason. */
  failNext = { count: 0, reason: '' };

  protected constructor(
    server: http.Server,
    url: string,
    media: StandinMedia,
    protected readonly o: Options,
  ) {
    super(server, url, media);
  }

  protected async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const read = await readJsonBody(req);
    if (read === 'invalid') return send(res, 400, { detail: 'invalid JSON' });
    const body = read.body;
    this.requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', body, headers: req.headers });
    await this.handle(req, res, new URL(req.url ?? '/', 'http://x').pathname, body);
  }

  protected abstract handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    path: string,
    body: any,
  ): Promise<void>;

  /** The model's own validation: prompt, a 5 or 10 s duration, a known ratio (defaulting to 16:9). */
  protected validate(model: string, input: Record<string, any>): string | HostedJob {
    if (typeof input.prompt !== 'string' || !input.prompt.trim()) return 'prompt is required';
    const seconds = Number(input.duration ?? 5);
    if (![5, 10].includes(seconds)) return 'duration must be one of 5, 10';
    const shape = SHAPES[input.aspect_ratio ?? '16:9'];
    if (!shape) return `aspect_ratio must be one of ${Object.keys(SHAPES).join(', ')}`;
    const media = mediaProblem(this.o.schema, input);
    if (media) return media;
    const job: HostedJob = {
      id: randomUUID(),
      model,
      input,
      width: shape[0],
      height: shape[1],
      seconds,
      polls: 0,
      canceled: false,
      ready: false,
      file: this.media.render(shape[0], shape[1], seconds),
    };
    void job.file.then(() => (job.ready = true));
    if (this.failNext.count > 0) {
      this.failNext.count--;
      job.failReason = this.failNext.reason;
    }
    this.jobs.push(job);
    return job;
  }

  /** Counts a poll; true once the job has been polled enough and its render is there. */
  protected done(job: HostedJob): boolean {
    return job.polls++ >= (this.o.pendingPolls ?? 2) && job.ready;
  }

  protected finished(job: HostedJob): boolean {
    return job.polls > (this.o.pendingPolls ?? 2) && job.ready;
  }
}

export class FalStandin extends HostedStandin {
  static start(o: Options): Promise<FalStandin> {
    return LoopbackStandin.open((server, url, media) => new FalStandin(server, url, media, o));
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, path: string, body: any): Promise<void> {
    if (req.headers.authorization !== `Key ${this.o.key}`)
      return send(res, 401, { detail: 'Authentication is required to perform this action' });
    const m = /^\/([\w.-]+\/[\w.-]+)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(path);
    if (m) {
      const job = this.jobs.find((j) => j.id === m[2] && appOf(j.model) === m[1]);
      if (!job) return send(res, 404, { detail: 'Request not found' });
      if (m[3] === '/cancel' && req.method === 'PUT') return this.cancel(res, job);
      if (m[3] === '/status' && req.method === 'GET') return this.status(res, job);
      if (!m[3] && req.method === 'GET') return this.result(res, job);
      return send(res, 405, { detail: 'Method Not Allowed' });
    }
    if (req.method !== 'POST') return send(res, 404, { detail: 'Not Found' });
    const model = path.slice(1);
    if (!this.o.models.includes(model)) return send(res, 404, { detail: `Application '${model}' not found` });
    if (this.rateLimited > 0) {
      this.rateLimited--;
      return send(res, 429, { detail: 'Too many concurrent requests' });
    }
    const job = this.validate(model, body ?? {});
    if (typeof job === 'string') return send(res, 422, { detail: [{ loc: ['body'], msg: job, type: 'value_error' }] });
    const base = `${this.url}/${appOf(model)}/requests/${job.id}`;
    send(res, 200, {
      request_id: job.id,
      response_url: base,
      status_url: `${base}/status`,
      cancel_url: `${base}/cancel`,
      queue_position: 0,
    });
  }

  private status(res: http.ServerResponse, job: HostedJob): void {
    const response_url = `${this.url}/${appOf(job.model)}/requests/${job.id}`;
    if (job.canceled || this.done(job)) {
      const error = job.canceled ? 'Request was cancelled' : job.failReason;
      return send(res, 200, {
        status: 'COMPLETED',
        logs: null,
        response_url,
        metrics: { inference_time: job.seconds * 1.5 },
        ...(error ? { error, error_type: 'runner_error' } : {}),
      });
    }
    if (job.polls === 1) return send(res, 202, { status: 'IN_QUEUE', queue_position: 0, response_url });
    send(res, 202, {
      status: 'IN_PROGRESS',
      logs: [{ message: 'rendering', level: 'INFO', source: 'user', timestamp: new Date().toISOString() }],
      response_url,
    });
  }

  private async result(res: http.ServerResponse, job: HostedJob): Promise<void> {
    if (!this.finished(job) && !job.canceled) return send(res, 400, { detail: 'Request is still in progress' });
    if (job.canceled) return send(res, 400, { detail: 'Request was cancelled' });
    if (job.failReason)
      return send(res, 422, { detail: [{ loc: ['body'], msg: job.failReason, type: 'model_error' }] });
    job.url ??= this.media.link(await job.file);
    send(res, 200, { video: { url: job.url, content_type: 'video/mp4', file_name: 'output.mp4' }, seed: 42 });
  }

  private cancel(res: http.ServerResponse, job: HostedJob): void {
    if (this.finished(job)) return send(res, 400, { status: 'ALREADY_COMPLETED' });
    job.canceled = true;
    send(res, 202, { status: 'CANCELLATION_REQUESTED' });
  }
}

export class ReplicateStandin extends HostedStandin {
  static start(o: Options): Promise<ReplicateStandin> {
    return LoopbackStandin.open((server, url, media) => new ReplicateStandin(server, url, media, o));
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse, path: string, body: any): Promise<void> {
    if (req.headers.authorization !== `Bearer ${this.o.key}`)
      return problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');
    const create = /^\/v1\/models\/([\w.-]+\/[\w.-]+)\/predictions$/.exec(path);
    if (req.method === 'POST' && (create || path === '/v1/predictions')) {
      const model = create ? create[1] : this.o.models.find((m) => body?.version && m.endsWith(`:${body.version}`));
      if (!model || !this.o.models.includes(model))
        return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      if (this.rateLimited > 0) {
        this.rateLimited--;
        res.setHeader('retry-after', '1');
        return problem(res, 429, 'Request was throttled', 'Request was throttled. Expected available in 1 second.');
      }
      const job = this.validate(model, body?.input ?? {});
      if (typeof job === 'string')
        return send(res, 422, {
          title: 'Input validation failed',
          detail: `- input: ${job}`,
          status: 422,
          invalid_fields: [{ type: 'invalid', field: 'input', description: job }],
        });
      // Prefer: wait holds the create until the prediction finished (or the wait ran out).
      if (/\bwait\b/.test(String(req.headers.prefer ?? '')))
        while (!this.done(job)) await job.file.then(() => new Promise((r) => setImmediate(r)));
      return send(res, 201, await this.prediction(job));
    }
    const one = /^\/v1\/predictions\/([\w-]+)(\/cancel)?$/.exec(path);
    const job = one && this.jobs.find((j) => j.id === one[1]);
    if (!job) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
    if (one[2] && req.method === 'POST') {
      if (!this.finished(job)) job.canceled = true;
      return send(res, 200, await this.prediction(job));
    }
    if (req.method === 'GET' && !one[2]) {
      this.done(job);
      return send(res, 200, await this.prediction(job));
    }
    problem(res, 405, 'Method not allowed', 'Method not allowed');
  }

  private async prediction(job: HostedJob): Promise<Record<string, unknown>> {
    const finished = this.finished(job);
    const status = job.canceled
      ? 'canceled'
      : !finished
        ? job.polls <= 1
          ? 'starting'
          : 'processing'
        : job.failReason
          ? 'failed'
          : 'succeeded';
    if (status === 'succeeded') job.url ??= this.media.link(await job.file);
    const urls = {
      get: `${this.url}/v1/predictions/${job.id}`,
      cancel: `${this.url}/v1/predictions/${job.id}/cancel`,
      web: `https://replicate.com/p/${job.id}`,
    };
    return {
      id: job.id,
      model: job.model.split(':')[0],
      version: job.model.split(':')[1] ?? 'hidden',
      input: job.input,
      logs: '',
      data_removed: false,
      output: status === 'succeeded' ? job.url : null,
      error: status === 'failed' ? job.failReason : null,
      status,
      created_at: new Date().toISOString(),
      urls,
      ...(finished ? { metrics: { predict_time: job.seconds * 2.5, total_time: job.seconds * 3 } } : {}),
    };
  }
}

const appOf = (model: string) => model.split('/').slice(0, 2).join('/');

function problem(res: http.ServerResponse, status: number, title: string, detail: string): void {
  send(res, status, { title, detail, status });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
