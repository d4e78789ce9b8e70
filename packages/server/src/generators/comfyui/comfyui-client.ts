/**
 * HTTP calls to one ComfyUI host. The host is configured by the operator (usually on a private
 * network), so this does not go through the SSRF-safe fetcher, which exists for caller-supplied URLs
 * and would refuse private addresses; it only ever requests paths under the configured base URL and
 * never follows redirects. Errors never carry the URL: a task's error message reaches its caller.
 */
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FAILURES, TaskFailure } from '../../domain/task-failure.ts';
import { fromHistory, fromJob, fromQueue, UNKNOWN, type OutputFile, type PromptStatus } from './prompt-status.ts';

export interface ComfyUiClientOptions {
  /** Extra headers for every request and the websocket, e.g. a reverse proxy's Authorization. */
  headers?: Record<string, string>;
  requestTimeoutMs?: number;
  downloadTimeoutMs?: number;
}

/** ComfyUI's answer to POST /prompt: queued (maybe with errors on some outputs) or refused. */
export type SubmitAnswer =
  | { accepted: true; nodeErrors: Record<string, unknown>; promptId?: string }
  | { accepted: false; error: unknown; nodeErrors: Record<string, unknown> };

/** A transient failure; `detail` (not enumerable, not in the message) names the host for operators. */
export function unavailable(host: string, cause?: unknown): TaskFailure {
  const err = FAILURES.backendUnavailable('The GPU host could not be reached or failed; the task can be retried.');
  Object.defineProperty(err, 'detail', { value: { host, cause }, enumerable: false });
  return err;
}

export class ComfyUiClient {
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  private readonly requestTimeoutMs: number;
  private readonly downloadTimeoutMs: number;
  /** Whether the host has GET /api/jobs/{id}; learned from the first answer, undefined until then. */
  private jobsApi: boolean | undefined;
  /** Whether POST /api/jobs/{id}/cancel exists; false once a host with the jobs API answered it 404/405. */
  private cancelApi: boolean | undefined;

  constructor(
    readonly name: string,
    baseUrl: string,
    options: ComfyUiClientOptions = {},
  ) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:')
      throw new Error(`ComfyUI host ${name}: the URL must be http or https`);
    this.headers = options.headers ?? {};
    this.requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
    this.downloadTimeoutMs = options.downloadTimeoutMs ?? 10 * 60_000;
  }

  /** The websocket URL for a client id; ComfyUI sends a prompt's messages only to the id it was queued with. */
  socketUrl(clientId: string): string {
    const url = new URL(`ws?clientId=${encodeURIComponent(clientId)}`, this.base);
    url.protocol = this.base.protocol === 'https:' ? 'wss:' : 'ws:';
    return url.toString();
  }

  socketHeaders(): Record<string, string> {
    return { ...this.headers };
  }

  async submit(body: Record<string, unknown>, signal: AbortSignal): Promise<SubmitAnswer> {
    const res = await this.request('POST', 'prompt', signal, { json: body });
    if (res.status === 200 || res.status === 400) {
      const answer = (await this.json(res)) as {
        error?: unknown;
        node_errors?: Record<string, unknown>;
        prompt_id?: unknown;
      };
      const nodeErrors = answer.node_errors && typeof answer.node_errors === 'object' ? answer.node_errors : {};
      if (res.status !== 200) return { accepted: false, error: answer.error, nodeErrors };
      return {
        accepted: true,
        nodeErrors,
        ...(typeof answer.prompt_id === 'string' ? { promptId: answer.prompt_id } : {}),
      };
    }
    await res.body?.cancel();
    throw unavailable(this.name, `POST /prompt answered ${res.status}`);
  }

  /** Uploads an input image; returns the name LoadImage must be given ("subfolder/name" or "name"). */
  async upload(bytes: Buffer, filename: string, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), filename);
    form.append('type', 'input');
    // Names are unique per attempt; overwrite keeps a retried upload from becoming "name (1).png".
    form.append('overwrite', 'true');
    const res = await this.request('POST', 'upload/image', signal, { form });
    if (res.status === 413) throw FAILURES.invalidInput('The input image is larger than the GPU host accepts.');
    if (!res.ok) {
      await res.body?.cancel();
      throw unavailable(this.name, `POST /upload/image answered ${res.status}`);
    }
    const answer = (await this.json(res)) as { name?: unknown; subfolder?: unknown };
    if (typeof answer.name !== 'string' || answer.name === '')
      throw unavailable(this.name, 'upload answer without a name');
    return typeof answer.subfolder === 'string' && answer.subfolder !== ''
      ? `${answer.subfolder}/${answer.name}`
      : answer.name;
  }

  /** Where the prompt is: the jobs endpoint on new builds, else history and queue. */
  async status(promptId: string, signal: AbortSignal): Promise<PromptStatus> {
    if (this.jobsApi !== false) {
      const res = await this.request('GET', `api/jobs/${encodeURIComponent(promptId)}`, signal);
      if (res.ok) {
        this.jobsApi = true;
        return fromJob(await this.json(res));
      }
      const text = await res.text();
      // A build with the endpoint says {"error": "Job not found"}; one without answers a 404 that is
      // not JSON: aiohttp's "404: Not Found", or an empty body (0.3.5x–0.3.6x builds).
      if (res.status === 404 && isJsonObject(text)) {
        this.jobsApi = true;
        return UNKNOWN;
      }
      if (res.status !== 404 && res.status !== 405)
        throw unavailable(this.name, `GET /api/jobs answered ${res.status}`);
      this.jobsApi = false;
    }
    return this.legacyStatus(promptId, signal);
  }

  private async legacyStatus(promptId: string, signal: AbortSignal): Promise<PromptStatus> {
    const history = async () =>
      ((await this.getJson(`history/${encodeURIComponent(promptId)}`, signal)) as Record<string, unknown>)[promptId];
    const done = await history();
    if (done) return fromHistory(done);
    const queued = fromQueue(await this.getJson('queue', signal), promptId);
    if (queued.state !== 'unknown') return queued;
    // It may have left the queue for the history between the two reads.
    const late = await history();
    return late ? fromHistory(late) : UNKNOWN;
  }

  /**
   * `POST /api/jobs/{id}/cancel` (server.py on builds with the jobs API): dequeues a pending prompt or
   * interrupts it only if it is the one running (PromptQueue.interrupt_if_running, atomic), and
   * answers 200 `{"cancelled": bool}` whatever the id. Asked only of hosts known to have the jobs
   * API; false when the host has no such route (a build between the two), so the caller falls back
   * to queue delete and interrupt.
   */
  async cancelJob(promptId: string, signal: AbortSignal): Promise<boolean> {
    if (this.jobsApi !== true || this.cancelApi === false) return false;
    const res = await this.request('POST', `api/jobs/${encodeURIComponent(promptId)}/cancel`, signal, { json: {} });
    await res.body?.cancel();
    if (res.ok) return true;
    if (res.status !== 404 && res.status !== 405)
      throw unavailable(this.name, `POST /api/jobs/{id}/cancel answered ${res.status}`);
    this.cancelApi = false;
    return false;
  }

  /** Interrupts the running prompt. Builds before targeted interrupts ignore the id and stop whatever runs. */
  async interrupt(promptId: string, signal: AbortSignal): Promise<void> {
    await this.expectOk(
      await this.request('POST', 'interrupt', signal, { json: { prompt_id: promptId } }),
      'interrupt',
    );
  }

  /** Removes a prompt that is still waiting in the queue; a no-op for one that is not. */
  async deleteQueued(promptId: string, signal: AbortSignal): Promise<void> {
    await this.expectOk(await this.request('POST', 'queue', signal, { json: { delete: [promptId] } }), 'queue delete');
  }

  /** Streams one output file to `dest`, refusing more than `maxBytes`. */
  async download(file: OutputFile, dest: string, maxBytes: number, signal: AbortSignal): Promise<void> {
    const query = new URLSearchParams({ filename: file.filename, subfolder: file.subfolder, type: file.type });
    const res = await this.request('GET', `view?${query}`, signal, { timeoutMs: this.downloadTimeoutMs });
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw unavailable(this.name, `GET /view answered ${res.status}`);
    }
    let bytes = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done(bytes > maxBytes ? FAILURES.invalidOutput('The generated video is larger than allowed.') : null, chunk);
      },
    });
    try {
      await pipeline(
        Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
        limit,
        createWriteStream(dest),
      );
    } catch (err) {
      if (err instanceof TaskFailure) throw err;
      throw signal.aborted ? FAILURES.canceled() : unavailable(this.name, err);
    }
  }

  private async getJson(path: string, signal: AbortSignal): Promise<unknown> {
    const res = await this.request('GET', path, signal);
    if (!res.ok) {
      await res.body?.cancel();
      throw unavailable(this.name, `GET /${path.split('?')[0]} answered ${res.status}`);
    }
    return this.json(res);
  }

  private async expectOk(res: Response, what: string): Promise<void> {
    await res.body?.cancel();
    if (!res.ok) throw unavailable(this.name, `${what} answered ${res.status}`);
  }

  private async json(res: Response): Promise<unknown> {
    try {
      return await res.json();
    } catch (err) {
      throw unavailable(this.name, err);
    }
  }

  /** One request under a timeout; network errors, timeouts, redirects and 5xx are transient failures. */
  private async request(
    method: string,
    path: string,
    signal: AbortSignal,
    opts: { json?: unknown; form?: FormData; timeoutMs?: number } = {},
  ): Promise<Response> {
    if (signal.aborted) throw FAILURES.canceled();
    const headers: Record<string, string> = { ...this.headers };
    let body: string | FormData | undefined = opts.form;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    let res: Response;
    try {
      res = await fetch(new URL(path, this.base), {
        method,
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(opts.timeoutMs ?? this.requestTimeoutMs)]),
      });
    } catch (err) {
      throw signal.aborted ? FAILURES.canceled() : unavailable(this.name, err);
    }
    if (res.status >= 500 || (res.status >= 300 && res.status < 400)) {
      await res.body?.cancel();
      throw unavailable(this.name, `${method} /${path.split('?')[0]} answered ${res.status}`);
    }
    return res;
  }
}

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return !!v && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}
