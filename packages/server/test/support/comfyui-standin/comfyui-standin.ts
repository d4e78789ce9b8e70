/**
 * A stand-in for a ComfyUI host (the GPU box we cannot run in tests) that speaks ComfyUI's real
 * HTTP and websocket protocol: POST /prompt with its validation and error shapes, /upload/image
 * (multipart), /ws with the real message sequence, /history, /api/jobs (switchable, to play an
 * older build), /queue, /interrupt and /view, every route also under /api like ComfyUI. A queue with
 * N execution slots renders real videos with ffmpeg. Fault switches play a crash, a slow GPU, 5xx
 * answers and dropped websockets.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { executePrompt, type ExecutionResult, type QueueItem } from './standin-executor.ts';
import { StandInRoutes } from './standin-routes.ts';
import { nodeDefs, type ModelFiles, type NodeDef } from './standin-nodes.ts';

export interface StandInOptions {
  ffmpeg: string;
  /**
   * `legacy` plays the 0.3.5x–0.3.6x builds the issue saw on a real 0.3.64: no /api/jobs (an empty
   * 404), interrupts seen only between nodes, SaveVideo's codec checked only when the node runs, no
   * `progress_state` messages. `current` (the default) plays builds with the jobs API and its cancel.
   */
  build?: 'current' | 'legacy';
  /** Prompts executed at once (ComfyUI itself runs one). */
  slots?: number;
  /** Whether GET /api/jobs/{id} exists (ComfyUI builds from late 2025 on). */
  jobsApi?: boolean;
  /** Whether a prompt_id in POST /prompt is honoured (builds from mid-2025 on); older ones mint their own. */
  clientPromptIds?: boolean;
  models?: Partial<ModelFiles>;
}

export interface StandInFaults {
  /** Render in real time (a 2 s video takes 2 s), like a GPU would. */
  slow?: boolean;
  /** Every run of this node class raises this Python exception (ComfyUI reports `execution_error`). */
  nodeError?: { classType: string; exceptionType: string; message: string };
  /** At this sampler fraction the process "restarts": queue, history and sockets are gone. */
  crashAtProgress?: number;
  /** Answer every HTTP request (and websocket upgrade) with this status. */
  serverError?: number;
  /** Cut every websocket at the first progress message and refuse new ones. */
  dropWebSockets?: boolean;
}

export interface HistoryEntry {
  prompt: [number, string, unknown, Record<string, unknown>, string[]];
  outputs: Record<string, unknown>;
  status: { status_str: string; completed: boolean; messages: ExecutionResult['messages'] };
  meta: Record<string, unknown>;
}

export interface StandInStats {
  /** prompt_id of every accepted POST /prompt, in order. */
  submitted: string[];
  /** Body prompt_id of every POST /interrupt (null for a global one), and of every jobs cancel that interrupted. */
  interrupts: Array<string | null>;
  /** Id of every POST /api/jobs/{id}/cancel. */
  jobCancels: string[];
  queueDeletes: string[];
  uploads: string[];
  /** "METHOD /path" of every HTTP request. */
  requests: string[];
  /** The W3C `traceparent` of every HTTP request, in the same order (undefined: none was sent). */
  traceparents: Array<string | undefined>;
  /** Most prompts queued or running at one time. */
  maxOutstanding: number;
  crashes: number;
}

/** The files of every built-in preset (generators/comfyui/workflows), as a host with them installed lists them. */
const DEFAULT_MODELS: ModelFiles = {
  diffusion_models: [
    'wan2.2_ti2v_5B_fp16.safetensors',
    'wan2.1_flf2v_720p_14B_fp16.safetensors',
    'phantom_wan_14B_fp16.safetensors',
  ],
  checkpoints: ['ltxv-2b-0.9.8-distilled.safetensors'],
  text_encoders: ['umt5_xxl_fp8_e4m3fn_scaled.safetensors', 't5xxl_fp16.safetensors'],
  vae: ['wan2.2_vae.safetensors', 'wan_2.1_vae.safetensors'],
};

export class ComfyUiStandIn {
  url = '';
  faults: StandInFaults = {};
  jobsApi: boolean;
  readonly clientPromptIds: boolean;
  readonly stats: StandInStats = {
    submitted: [],
    interrupts: [],
    jobCancels: [],
    queueDeletes: [],
    uploads: [],
    requests: [],
    traceparents: [],
    maxOutstanding: 0,
    crashes: 0,
  };
  readonly legacy: boolean;
  readonly defs: Record<string, NodeDef>;
  queue: QueueItem[] = [];
  /** `abort` is the interrupt flag; `kill` ends the render at once (a crash, close()). */
  running = new Map<string, { item: QueueItem; abort: AbortController; kill: AbortController }>();
  history = new Map<string, HistoryEntry>();
  /** clientId → socket; like ComfyUI, a reconnect under the same id replaces the old entry. */
  sockets = new Map<string, WebSocket>();
  number = 0;
  private readonly server = createServer((req, res) => this.handle(req, res));
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly slots: number;
  private generation = 0;
  /** Executions not yet returned, crashed ones included: close() waits for their ffmpeg to exit. */
  private readonly live = new Set<Promise<void>>();

  private constructor(
    readonly dir: string,
    private readonly options: StandInOptions,
  ) {
    this.slots = options.slots ?? 1;
    this.legacy = options.build === 'legacy';
    this.jobsApi = options.jobsApi ?? !this.legacy;
    this.clientPromptIds = options.clientPromptIds ?? true;
    this.defs = nodeDefs(
      { ...DEFAULT_MODELS, ...options.models },
      (name) => !name.includes('..') && existsSync(join(this.dirs.input, name)),
      this.legacy,
    );
    this.server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const refused = this.faults.serverError ?? (this.faults.dropWebSockets ? 503 : undefined);
      if (!['/ws', '/api/ws'].includes(url.pathname) || refused) {
        socket.end(`HTTP/1.1 ${refused ?? 404} Refused\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) =>
        this.connected(ws, url.searchParams.get('clientId') || randomUUID().replaceAll('-', '')),
      );
    });
  }

  static async start(options: StandInOptions): Promise<ComfyUiStandIn> {
    const dir = await mkdtemp(join(tmpdir(), 'comfyui-standin-'));
    const standIn = new ComfyUiStandIn(dir, options);
    for (const d of Object.values(standIn.dirs)) await mkdir(d, { recursive: true });
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    standIn.url = `http://127.0.0.1:${(standIn.server.address() as AddressInfo).port}`;
    return standIn;
  }

  get dirs() {
    return { input: join(this.dir, 'input'), output: join(this.dir, 'output'), temp: join(this.dir, 'temp') };
  }

  get outstanding(): number {
    return this.queue.length + this.running.size;
  }

  /** ComfyUI's PromptServer.send: to one client id, or to everyone when there is none. */
  send(event: string, data: Record<string, unknown>, sid: string | undefined): void {
    const text = JSON.stringify({ type: event, data });
    const targets =
      sid === undefined ? [...this.sockets.values()] : [this.sockets.get(sid)].filter((s) => s !== undefined);
    for (const ws of targets) if (ws.readyState === ws.OPEN) ws.send(text);
    if (event === 'progress' && this.faults.dropWebSockets) for (const ws of this.wss.clients) ws.terminate();
  }

  queueUpdated(): void {
    this.stats.maxOutstanding = Math.max(this.stats.maxOutstanding, this.outstanding);
    this.send('status', { status: { exec_info: { queue_remaining: this.outstanding } } }, undefined);
    this.pump();
  }

  /** Interrupts running prompts: the one named, or all of them (a global interrupt). */
  interrupt(promptId: string | null): void {
    for (const [id, run] of this.running) if (promptId === null || id === promptId) run.abort.abort();
  }

  /** PromptQueue.interrupt_if_running: only when that prompt runs, atomically. */
  interruptIfRunning(promptId: string): boolean {
    const run = this.running.get(promptId);
    run?.abort.abort();
    return run !== undefined;
  }

  /** A crash and restart: running renders die, and queue, history and sockets are gone. */
  crash(): void {
    this.stats.crashes++;
    this.generation++;
    for (const run of this.running.values()) run.kill.abort();
    this.running.clear();
    this.queue = [];
    this.history.clear();
    for (const ws of this.wss.clients) ws.terminate();
    this.sockets.clear();
  }

  async close(): Promise<void> {
    for (const run of this.running.values()) run.kill.abort();
    this.queue = [];
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Let killed renders exit before their folder goes.
    await Promise.allSettled([...this.live]);
    await rm(this.dir, { recursive: true, force: true });
  }

  private connected(ws: WebSocket, sid: string): void {
    this.sockets.set(sid, ws);
    ws.on('close', () => this.sockets.get(sid) === ws && this.sockets.delete(sid));
    ws.on('error', () => undefined);
    ws.send(
      JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: this.outstanding } }, sid } }),
    );
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.stats.requests.push(`${req.method} ${path}`);
    this.stats.traceparents.push(typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined);
    if (this.faults.serverError) {
      res.writeHead(this.faults.serverError, { 'content-type': 'text/plain' }).end('500 Internal Server Error');
      return;
    }
    new StandInRoutes(this).handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('500 Internal Server Error');
    });
  }

  /** Starts queued prompts (lowest number first) while execution slots are free. */
  private pump(): void {
    while (this.running.size < this.slots && this.queue.length > 0) {
      this.queue.sort((a, b) => a.number - b.number);
      const item = this.queue.shift()!;
      const run = { item, abort: new AbortController(), kill: new AbortController() };
      this.running.set(item.id, run);
      this.send('status', { status: { exec_info: { queue_remaining: this.outstanding } } }, undefined);
      const execution = this.execute(run);
      this.live.add(execution);
      void execution.finally(() => this.live.delete(execution));
    }
  }

  private async execute({
    item,
    abort,
    kill,
  }: {
    item: QueueItem;
    abort: AbortController;
    kill: AbortController;
  }): Promise<void> {
    const generation = this.generation;
    const host = {
      ffmpeg: this.options.ffmpeg,
      dirs: this.dirs,
      slow: () => this.faults.slow === true,
      nodeError: () => this.faults.nodeError,
      interruptsBetweenNodesOnly: this.legacy,
      progressState: !this.legacy,
      send: (e: string, d: Record<string, unknown>, sid: string | undefined) =>
        generation === this.generation && this.send(e, d, sid),
      onSamplerProgress: (_: QueueItem, fraction: number) => {
        if (this.faults.crashAtProgress !== undefined && fraction >= this.faults.crashAtProgress) this.crash();
      },
    };
    const result = await executePrompt(item, host, abort.signal, kill.signal);
    if (generation !== this.generation) return; // it died with the process
    this.running.delete(item.id);
    this.history.set(item.id, {
      prompt: [item.number, item.id, item.prompt, item.extra, item.outputs],
      outputs: result.outputs,
      status: { status_str: result.status_str, completed: result.completed, messages: result.messages },
      meta: result.meta,
    });
    this.queueUpdated();
    const sid = item.extra.client_id;
    if (typeof sid === 'string') this.send('executing', { node: null, prompt_id: item.id }, sid);
  }
}
