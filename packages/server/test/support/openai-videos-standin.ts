/**
 * A stand-in for a server of OpenAI's own Videos shape, the one LiteLLM's `/v1/videos`, Dynamo,
 * Unsloth and vidgen serve, written from the official SDK (openai/openai-node
 * `src/resources/videos/videos.ts`), not from vidgen: `create` sends JSON, or multipart when a file
 * goes along (`maybeMultipartFormRequestOptions`); `input_reference` is `{image_url}` (a URL or a
 * data URL) or a file; `seconds` and `size` come from the model's lists ('4' | '8' | '12';
 * '720x1280' | '1280x720' | '1024x1792' | '1792x1024'); `edit` (`POST /videos/edits`) and `extend`
 * (`POST /videos/extensions`, `seconds` added; the Video's `seconds` is then the stitched total)
 * take `video: {id}` or an uploaded `video` file; a Video is `{id: "video_…", object, model, status,
 * progress, created_at, completed_at, expires_at, prompt, seconds, size, remixed_from_video_id,
 * error: {code, message}}`; `delete` takes completed or failed videos only. Errors are
 * `{error: {message, type, param, code}}`; pending answers carry `openai-poll-after-ms`.
 */
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { LoopbackStandin, type StandinMedia } from './standin-media.ts';
import { probeDataUri } from './standin-probe.ts';
import { readForm, send, VideoStandin, type VideoJob, type VideoStandinOptions } from './openai-video-standin.ts';

export interface OpenAiVideosOptions extends VideoStandinOptions {
  seconds?: string[];
  sizes?: string[];
}

export class OpenAiVideosStandin extends VideoStandin {
  static start(o: OpenAiVideosOptions = {}): Promise<OpenAiVideosStandin> {
    const options = { patch: 1, pollAfterMs: 20, ...o };
    return LoopbackStandin.open((server, url, media) => new OpenAiVideosStandin(server, url, media, options));
  }

  private constructor(server: http.Server, url: string, media: StandinMedia, o: OpenAiVideosOptions) {
    super(server, url, media, o);
  }

  private get lists() {
    const o = this.o as OpenAiVideosOptions;
    return {
      seconds: o.seconds ?? ['4', '8', '12'],
      sizes: o.sizes ?? ['720x1280', '1280x720', '1024x1792', '1792x1024'],
    };
  }

  protected async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const edit = /^\/v1\/videos\/(edits|extensions)$/.exec(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method !== 'POST' || !edit) return super.serve(req, res);
    this.requests.push({ method: 'POST', path: req.url ?? '/', headers: req.headers });
    if (this.o.key && req.headers.authorization !== `Bearer ${this.o.key}`) return send(res, 401, this.unauthorized());
    const { fields, encoding } = await readBody(req);
    if (typeof fields.prompt !== 'string') return invalid(res, 'prompt', "Missing required parameter: 'prompt'.");
    const input = await this.inputOf(fields.video);
    if (!input) return invalid(res, 'video', 'video must be the id of a completed video or an MP4 file.');
    let seconds = input.seconds;
    if (edit[1] === 'extensions') {
      if (!this.lists.seconds.includes(String(fields.seconds))) return this.badSeconds(res, fields.seconds);
      seconds += Number(fields.seconds);
    }
    const id = `video_${randomBytes(16).toString('hex')}`;
    send(res, 200, this.video(this.start(fields, encoding, id, `${input.width}x${input.height}`, seconds)));
  }

  protected unauthorized(): unknown {
    return {
      error: {
        message: 'Incorrect API key provided.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    };
  }

  protected async create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const { fields, encoding } = await readBody(req);
    if (typeof fields.prompt !== 'string') return invalid(res, 'prompt', "Missing required parameter: 'prompt'.");
    const seconds = String(fields.seconds ?? '4');
    if (!this.lists.seconds.includes(seconds)) return this.badSeconds(res, seconds);
    const size = String(fields.size ?? '720x1280');
    if (!this.lists.sizes.includes(size))
      return invalid(res, 'size', `Invalid value: '${size}'. Supported values are: ${this.lists.sizes.join(', ')}.`);
    const ref = fields.input_reference;
    if (
      ref !== undefined &&
      !ref.file &&
      !(typeof ref.image_url === 'string' && /^(https?:|data:image\/)/.test(ref.image_url))
    )
      return invalid(res, 'input_reference', 'input_reference must be a file or carry an image_url.');
    const id = `video_${randomBytes(16).toString('hex')}`;
    send(res, 200, this.video(this.start(fields, encoding, id, size, Number(seconds))));
  }

  protected async remove(res: http.ServerResponse, job: VideoJob): Promise<void> {
    const status = this.status(job);
    if (status !== 'completed' && status !== 'failed')
      return invalid(res, 'video_id', 'Only completed or failed videos can be deleted.', 409);
    job.deleted = true;
    send(res, 200, { id: job.id, object: 'video.deleted', deleted: true });
  }

  protected video(job: VideoJob): Record<string, any> {
    const status = this.status(job);
    const now = Math.floor(Date.now() / 1000);
    return {
      id: job.id,
      object: 'video',
      model: job.fields.model ?? 'sora-2',
      status,
      progress: status === 'completed' ? 100 : Math.min(90, job.polls * 30),
      created_at: now,
      completed_at: status === 'completed' || status === 'failed' ? now : null,
      expires_at: status === 'completed' ? now + 3600 : null,
      prompt: job.fields.prompt,
      seconds: String(job.seconds),
      size: `${job.width}x${job.height}`,
      remixed_from_video_id: null,
      error: status === 'failed' ? { code: 'video_generation_failed', message: job.failure!.message } : null,
    };
  }

  /** `video: {id}` of a completed video here, or an uploaded MP4 (read with ffprobe). */
  private async inputOf(video: any): Promise<{ width: number; height: number; seconds: number } | undefined> {
    if (video?.file) return probeDataUri(`data:video/mp4;base64,${(video.file as Buffer).toString('base64')}`);
    const own = this.jobs.find((j) => j.id === video?.id && this.status(j) === 'completed');
    return own ? { width: own.width, height: own.height, seconds: own.seconds } : undefined;
  }

  private badSeconds(res: http.ServerResponse, seconds: unknown): void {
    invalid(
      res,
      'seconds',
      `Invalid value: '${String(seconds)}'. Supported values are: ${this.lists.seconds.join(', ')}.`,
    );
  }
}

async function readBody(
  req: http.IncomingMessage,
): Promise<{ fields: Record<string, any>; encoding: VideoJob['encoding'] }> {
  if (String(req.headers['content-type'] ?? '').startsWith('multipart/form-data'))
    return { fields: (await readForm(req)) ?? {}, encoding: 'multipart' };
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return { fields: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'), encoding: 'json' };
  } catch {
    return { fields: {}, encoding: 'json' };
  }
}

function invalid(res: http.ServerResponse, param: string, message: string, status = 400): void {
  send(res, status, { error: { message, type: 'invalid_request_error', param, code: 'invalid_value' } });
}
