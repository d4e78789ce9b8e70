/**
 * A stand-in for Gemini API Veo (generativelanguage.googleapis.com), written from Google's own
 * documentation, not from vidgen: "Generate videos with Veo 3.1 in the Gemini API"
 * (ai.google.dev/gemini-api/docs/video: the REST tab and the parameter table) and the shapes Google's
 * clients read (`response.generateVideoResponse.generatedSamples[].video.uri`,
 * `raiMediaFilteredCount`, `raiMediaFilteredReasons`):
 * - `POST /v1beta/models/{model}:predictLongRunning` with `x-goog-api-key` → `{name:
 *   "models/{model}/operations/{id}"}`; parameters aspectRatio "16:9" | "9:16", durationSeconds
 *   "4" | "6" | "8", resolution "720p" | "1080p" (1080p only for 8 s), `image: {bytesBase64Encoded,
 *   mimeType}`;
 * - `GET /v1beta/{name}` → `{name, done: false}` until `{done: true, response: {"@type",
 *   generateVideoResponse: {generatedSamples: [{video: {uri}}]}}}`, or `{done: true, error: {code,
 *   message}}`, or (filtered) a response with no sample and `raiMediaFilteredReasons`;
 * - `GET /v1beta/files/{id}:download?alt=media` with the key → 302 to storage (the CDN stand-in);
 *   without the key 403; a file past its retention 404.
 * Errors are `{error: {code, message, status}}`: a bad key 400 INVALID_ARGUMENT "API key not valid",
 * no key 403 PERMISSION_DENIED, an unknown model 404 NOT_FOUND, quota 429 RESOURCE_EXHAUSTED.
 * No cancel, no listing by anything the client sent, no Idempotency-Key.
 */
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { LoopbackStandin, readJsonBody, type StandinMedia } from './standin-media.ts';
import { veoInputProblem } from './veo-standin-inputs.ts';

export interface VeoOperation {
  name: string;
  model: string;
  body: Record<string, any>;
  headers: http.IncomingHttpHeaders;
  width: number;
  height: number;
  seconds: number;
  polls: number;
  ready: boolean;
  filtered?: string;
  failure?: string;
  fileId: string;
  path?: string;
  render?: Promise<string>;
}

export interface VeoStandinOptions {
  key: string;
  models: string[];
  /** Polls answered `done: false` first. */
  pendingPolls?: number;
  durations?: number[];
}

const SIZES: Record<string, Record<string, [number, number]>> = {
  '720p': { '16:9': [1280, 720], '9:16': [720, 1280] },
  '1080p': { '16:9': [1920, 1080], '9:16': [1080, 1920] },
};

export class VeoStandin extends LoopbackStandin {
  readonly operations: VeoOperation[] = [];
  readonly requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }> = [];
  /** The next N creates answer 429 RESOURCE_EXHAUSTED. */
  exhausted = 0;
  /** The next N runs end `done` without a sample, filtered for this reason. */
  filterNext = { count: 0, reason: '' };
  /** The next N runs end `done` with an error. */
  failNext = { count: 0, message: '' };
  /** Files past their retention: their download answers 404. */
  readonly deletedFiles = new Set<string>();

  private constructor(
    server: http.Server,
    url: string,
    media: StandinMedia,
    private readonly o: VeoStandinOptions,
  ) {
    super(server, url, media);
  }

  /** Waits for renders still running (their ffmpeg processes) before the listener and media go. */
  async close(): Promise<void> {
    await Promise.allSettled(this.operations.map((o) => o.render));
    await super.close();
  }

  static start(o: VeoStandinOptions): Promise<VeoStandin> {
    return LoopbackStandin.open((server, url, media) => new VeoStandin(server, url, media, o));
  }

  protected async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    this.requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers });
    const read = await readJsonBody(req);
    const key = req.headers['x-goog-api-key'];
    if (key === undefined)
      return error(
        res,
        403,
        'PERMISSION_DENIED',
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      );
    if (key !== this.o.key)
      return error(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    if (read === 'invalid') return error(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    const create = /^\/v1beta\/models\/([\w.-]+):predictLongRunning$/.exec(url.pathname);
    if (req.method === 'POST' && create) return this.create(res, create[1], read.body ?? {}, req.headers);
    const op = /^\/v1beta\/(models\/[\w.-]+\/operations\/\w+)$/.exec(url.pathname);
    if (req.method === 'GET' && op) return this.poll(res, op[1], `http://${req.headers.host}`);
    const file = /^\/v1beta\/files\/(\w+):download$/.exec(url.pathname);
    if (req.method === 'GET' && file) return this.download(res, file[1]);
    error(res, 404, 'NOT_FOUND', `Requested entity was not found.`);
  }

  private create(
    res: http.ServerResponse,
    model: string,
    body: Record<string, any>,
    headers: http.IncomingHttpHeaders,
  ) {
    if (!this.o.models.includes(model))
      return error(
        res,
        404,
        'NOT_FOUND',
        `models/${model} is not found for API version v1beta, or is not supported for predictLongRunning.`,
      );
    if (this.exhausted > 0) {
      this.exhausted--;
      return error(res, 429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).');
    }
    const instance = body.instances?.[0];
    if (typeof instance?.prompt !== 'string' || !instance.prompt.trim())
      return error(res, 400, 'INVALID_ARGUMENT', 'instances[0].prompt is required.');
    const p = body.parameters ?? {};
    const ratio = p.aspectRatio ?? '16:9';
    const resolution = p.resolution ?? '720p';
    const seconds = Number(p.durationSeconds ?? 8);
    if (!(this.o.durations ?? [4, 6, 8]).includes(seconds))
      return error(res, 400, 'INVALID_ARGUMENT', `The value of durationSeconds is out of range: ${p.durationSeconds}.`);
    const size = SIZES[resolution]?.[ratio];
    if (!size)
      return error(res, 400, 'INVALID_ARGUMENT', `Unsupported aspectRatio or resolution: ${ratio}, ${resolution}.`);
    if (resolution === '1080p' && seconds !== 8)
      return error(res, 400, 'INVALID_ARGUMENT', '1080p is only supported for 8 second videos.');
    if (instance.image !== undefined && typeof instance.image?.bytesBase64Encoded !== 'string')
      return error(res, 400, 'INVALID_ARGUMENT', 'instances[0].image must carry bytesBase64Encoded and mimeType.');
    const refused = veoInputProblem(instance);
    if (refused) return error(res, 400, 'INVALID_ARGUMENT', refused);
    const operation: VeoOperation = {
      name: `models/${model}/operations/${randomBytes(6).toString('hex')}`,
      model,
      body,
      headers,
      width: size[0],
      height: size[1],
      seconds,
      polls: 0,
      ready: false,
      fileId: randomBytes(6).toString('hex'),
    };
    if (this.filterNext.count > 0) {
      this.filterNext.count--;
      operation.filtered = this.filterNext.reason;
    } else if (this.failNext.count > 0) {
      this.failNext.count--;
      operation.failure = this.failNext.message;
    }
    operation.render = this.media.render(size[0], size[1], seconds);
    void operation.render.then(
      (path) => {
        operation.path = path;
        operation.ready = true;
      },
      () => undefined,
    );
    this.operations.push(operation);
    send(res, 200, { name: operation.name });
  }

  /** `origin`: the API's own host as the caller reached it, where the file links point. */
  private poll(res: http.ServerResponse, name: string, origin: string): void {
    const op = this.operations.find((o) => o.name === name);
    if (!op) return error(res, 404, 'NOT_FOUND', 'Operation not found.');
    if (op.polls++ < (this.o.pendingPolls ?? 2) || !op.ready) return send(res, 200, { name: op.name });
    if (op.failure) return send(res, 200, { name: op.name, done: true, error: { code: 13, message: op.failure } });
    const type = 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse';
    if (op.filtered !== undefined)
      return send(res, 200, {
        name: op.name,
        done: true,
        response: {
          '@type': type,
          generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: [op.filtered] },
        },
      });
    const uri = `${origin}/v1beta/files/${op.fileId}:download?alt=media`;
    send(res, 200, {
      name: op.name,
      done: true,
      response: { '@type': type, generateVideoResponse: { generatedSamples: [{ video: { uri } }] } },
    });
  }

  /** The file endpoint checks the key, then sends the client on to storage. */
  private download(res: http.ServerResponse, fileId: string): void {
    const op = this.operations.find((o) => o.fileId === fileId);
    if (!op?.path || this.deletedFiles.has(fileId)) return error(res, 404, 'NOT_FOUND', `File ${fileId} not found.`);
    res.writeHead(302, { location: this.media.link(op.path), 'content-length': 0 }).end();
  }
}

function error(res: http.ServerResponse, code: number, status: string, message: string): void {
  send(res, code, { error: { code, message, status } });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
