/**
 * The stand-in's HTTP routes, answering as ComfyUI's server.py does (including its quirks: an
 * unknown prompt's history is `{}` with 200, a duplicate prompt_id is queued again, queue entries
 * are tuples, /interrupt without a prompt_id stops everything).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { ComfyUiStandIn, HistoryEntry } from './comfyui-standin.ts';
import type { QueueItem } from './standin-executor.ts';
import { validatePrompt, type Prompt } from './standin-nodes.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.gif': 'image/gif',
  '.png': 'image/png',
};

export class StandInRoutes {
  constructor(private readonly s: ComfyUiStandIn) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const jobs = /^\/api\/jobs\/([^/]+)(\/cancel)?$/.exec(url.pathname);
    if (jobs && !this.s.jobsApi) return this.s.legacy ? json(res, 404, undefined) : notFound(res);
    if (jobs && method === 'GET' && !jobs[2]) return this.job(decodeURIComponent(jobs[1]), res);
    if (jobs && method === 'POST' && jobs[2]) return this.cancelJob(decodeURIComponent(jobs[1]), res);
    // Every route is also served under /api, as ComfyUI does for its frontend.
    const path = url.pathname.startsWith('/api/') ? url.pathname.slice(4) : url.pathname;
    const history = /^\/history\/([^/]+)$/.exec(path);
    const route = `${method} ${history ? '/history/{id}' : path}`;
    switch (route) {
      case 'POST /prompt':
        return this.prompt(JSON.parse(await body(req).then(String)), res);
      case 'GET /prompt':
        return json(res, 200, { exec_info: { queue_remaining: this.s.outstanding } });
      case 'GET /queue':
        return json(res, 200, {
          queue_running: [...this.s.running.values()].map((r) => tuple(r.item)),
          queue_pending: this.s.queue.map(tuple),
        });
      case 'POST /queue':
        return this.postQueue(JSON.parse(await body(req).then(String)), res);
      case 'POST /interrupt': {
        const raw = await body(req).then(String);
        const id = raw ? ((JSON.parse(raw) as { prompt_id?: string }).prompt_id ?? null) : null;
        this.s.stats.interrupts.push(id);
        this.s.interrupt(id);
        return json(res, 200, undefined);
      }
      case 'GET /history':
        return json(res, 200, Object.fromEntries(this.s.history));
      case 'GET /history/{id}': {
        const id = decodeURIComponent(history![1]);
        const entry = this.s.history.get(id);
        return json(res, 200, entry ? { [id]: entry } : {});
      }
      case 'POST /upload/image':
        return this.upload(req, res);
      case 'GET /view':
        return this.view(url.searchParams, res);
      default:
        return notFound(res);
    }
  }

  private prompt(b: Record<string, unknown>, res: ServerResponse): void {
    const number = typeof b.number === 'number' ? b.number : b.front ? -this.s.number++ : this.s.number++;
    if (!('prompt' in b)) {
      return json(res, 400, {
        error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} },
        node_errors: {},
      });
    }
    let id: string = randomUUID();
    if (this.s.clientPromptIds && b.prompt_id !== undefined && b.prompt_id !== null) {
      if (typeof b.prompt_id !== 'string' || !UUID.test(b.prompt_id)) {
        const error = {
          type: 'invalid_prompt_id',
          message: 'prompt_id must be a valid UUID',
          details:
            'prompt_id must be a UUID string in canonical lowercase hyphenated form; omit it to let the server generate one',
          extra_info: {},
        };
        return json(res, 400, { error, node_errors: {} });
      }
      id = b.prompt_id;
    }
    const prompt = (b.prompt ?? {}) as Prompt;
    const valid = validatePrompt(prompt, this.s.defs);
    if (!valid.ok) return json(res, 400, { error: valid.error, node_errors: valid.nodeErrors });
    const extra = {
      ...((b.extra_data as Record<string, unknown>) ?? {}),
      ...(b.client_id !== undefined ? { client_id: b.client_id } : {}),
      create_time: Date.now(),
    };
    // Like ComfyUI: no check that the id is new; a second POST queues a second copy.
    this.s.queue.push({ number, id, prompt, extra, outputs: valid.outputs });
    this.s.stats.submitted.push(id);
    this.s.queueUpdated();
    json(res, 200, { prompt_id: id, number, node_errors: valid.nodeErrors });
  }

  private postQueue(b: { clear?: boolean; delete?: string[] }, res: ServerResponse): void {
    if (b.clear) this.s.queue = [];
    for (const id of b.delete ?? []) {
      this.s.stats.queueDeletes.push(id);
      const i = this.s.queue.findIndex((q) => q.id === id);
      if (i >= 0) this.s.queue.splice(i, 1);
    }
    this.s.queueUpdated();
    json(res, 200, undefined);
  }

  /**
   * server.py `POST /api/jobs/{job_id}/cancel` with comfy_execution/jobs.py cancel_job: a pending
   * prompt is dequeued, a running one interrupted (only if it is the one running), a finished or
   * unknown id is a no-op; always 200 `{"cancelled": bool}` (ComfyUI's own test of these routes).
   */
  private cancelJob(id: string, res: ServerResponse): void {
    this.s.stats.jobCancels.push(id);
    const i = this.s.queue.findIndex((q) => q.id === id);
    let cancelled = false;
    if (i >= 0) {
      this.s.stats.queueDeletes.push(id);
      this.s.queue.splice(i, 1);
      this.s.queueUpdated();
      cancelled = true;
    } else if (this.s.interruptIfRunning(id)) {
      this.s.stats.interrupts.push(id);
      cancelled = true;
    }
    json(res, 200, { cancelled });
  }

  /** comfy_execution/jobs.py get_job: history first, then running, then pending. */
  private job(id: string, res: ServerResponse): void {
    const entry = this.s.history.get(id);
    if (entry) return json(res, 200, normalizeHistoryItem(id, entry));
    const running = this.s.running.get(id)?.item;
    const queued = this.s.queue.find((q) => q.id === id);
    const item = running ?? queued;
    if (!item) return json(res, 404, { error: 'Job not found' });
    return json(res, 200, {
      id,
      status: running ? 'in_progress' : 'pending',
      priority: item.number,
      create_time: item.extra.create_time,
      outputs_count: 0,
    });
  }

  private async upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await new Response(new Uint8Array(await body(req)), {
      headers: { 'content-type': req.headers['content-type'] ?? '' },
    }).formData();
    const image = form.get('image');
    if (!(image instanceof File) || !image.name) return json(res, 400, undefined);
    const type = String(form.get('type') ?? 'input');
    const subfolder = String(form.get('subfolder') ?? '');
    const root = type === 'temp' ? this.s.dirs.temp : type === 'output' ? this.s.dirs.output : this.s.dirs.input;
    const folder = join(root, normalize(subfolder));
    let name = image.name;
    if (!resolve(folder, name).startsWith(root + sep)) return json(res, 400, undefined);
    const bytes = Buffer.from(await image.arrayBuffer());
    const overwrite = ['true', '1'].includes(String(form.get('overwrite')));
    for (let i = 1; !overwrite && existsSync(join(folder, name)); i++) {
      if ((await readFile(join(folder, name))).equals(bytes)) break; // a duplicate keeps its name
      name = `${image.name.slice(0, -extname(image.name).length || undefined)} (${i})${extname(image.name)}`;
    }
    await writeFile(join(folder, name), bytes);
    this.s.stats.uploads.push(name);
    json(res, 200, { name, subfolder, type });
  }

  private async view(q: URLSearchParams, res: ServerResponse): Promise<void> {
    const filename = q.get('filename');
    if (!filename) return notFound(res);
    if (filename.startsWith('/') || filename.includes('..')) return json(res, 400, undefined);
    const dirs: Record<string, string> = {
      output: this.s.dirs.output,
      input: this.s.dirs.input,
      temp: this.s.dirs.temp,
    };
    const root = dirs[q.get('type') ?? 'output'];
    if (!root) return json(res, 400, undefined);
    const folder = resolve(root, q.get('subfolder') ?? '');
    if (folder !== root && !folder.startsWith(root + sep)) return json(res, 403, undefined);
    const file = join(folder, filename);
    if (!existsSync(file)) return notFound(res);
    const bytes = await readFile(file);
    res
      .writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'content-length': bytes.length,
      })
      .end(bytes);
  }
}

const tuple = (q: QueueItem) => [q.number, q.id, q.prompt, q.extra, q.outputs];

/** comfy_execution/jobs.py normalize_history_item with include_outputs. */
function normalizeHistoryItem(id: string, h: HistoryEntry): Record<string, unknown> {
  const find = (name: string) => h.status.messages.find((m) => m[0] === name)?.[1];
  const error = find('execution_error');
  const status =
    h.status.status_str === 'success' ? 'completed' : find('execution_interrupted') ? 'cancelled' : 'failed';
  const outputsCount = Object.values(h.outputs).reduce<number>(
    (n, o) =>
      n +
      Object.entries(o as Record<string, unknown[]>)
        .filter(([k]) => k !== 'animated')
        .reduce((m, [, l]) => m + l.length, 0),
    0,
  );
  return {
    id,
    status,
    priority: h.prompt[0],
    create_time: h.prompt[3].create_time,
    execution_start_time: find('execution_start')?.timestamp,
    execution_end_time: (find('execution_success') ?? error ?? find('execution_interrupted'))?.timestamp,
    ...(error ? { execution_error: error } : {}),
    outputs_count: outputsCount,
    outputs: h.outputs,
    execution_status: h.status,
    workflow: { prompt: h.prompt[2], extra_data: h.prompt[3] },
  };
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => resolveBody(Buffer.concat(chunks)))
      .on('error', reject);
  });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  if (value === undefined) {
    res.writeHead(status, { 'content-length': 0 }).end();
    return;
  }
  const text = JSON.stringify(value);
  res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
    .end(text);
}

/** aiohttp's answer for a route that does not exist. */
function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404: Not Found');
}
