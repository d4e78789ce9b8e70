/**
 * What ComfyUI says about one prompt, read from either status endpoint and reduced to one shape.
 * Newer builds answer `GET /api/jobs/{id}`; older ones only have `/history/{id}` (which is `{}`
 * until the prompt has finished) and `/queue` (which lists queued and running prompts as tuples).
 */

export type PromptState = 'pending' | 'running' | 'succeeded' | 'failed' | 'canceled' | 'unknown';

/** A file a node wrote, as ComfyUI lists it: fetch it with GET /view?filename&subfolder&type. */
export interface OutputFile {
  filename: string;
  subfolder: string;
  type: string;
}

export interface PromptFailure {
  /** Class of the node that failed, e.g. "KSampler". */
  nodeType?: string;
  /** Python exception type, e.g. "torch.OutOfMemoryError". */
  exceptionType?: string;
  /** ComfyUI's own words; may hold host paths, so for operators' logs only. */
  exceptionMessage?: string;
}

export interface PromptStatus {
  state: PromptState;
  outputs: OutputFile[];
  failure?: PromptFailure;
}

export const TERMINAL: readonly PromptState[] = ['succeeded', 'failed', 'canceled'];
export const UNKNOWN: PromptStatus = { state: 'unknown', outputs: [] };

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

/** From the job object of `GET /api/jobs/{id}`. */
export function fromJob(job: unknown): PromptStatus {
  const j = obj(job);
  const states: Record<string, PromptState> = {
    pending: 'pending',
    in_progress: 'running',
    completed: 'succeeded',
    failed: 'failed',
    cancelled: 'canceled',
  };
  const state = states[String(j.status)] ?? 'unknown';
  return {
    state,
    outputs: outputFiles(j.outputs),
    ...(state === 'failed' ? { failure: failureOf(j.execution_error) } : {}),
  };
}

/** From one entry of `GET /history/{id}`, i.e. `history[id]`. */
export function fromHistory(entry: unknown): PromptStatus {
  const e = obj(entry);
  const status = obj(e.status);
  const messages = Array.isArray(status.messages) ? (status.messages as unknown[]) : [];
  const event = (name: string) =>
    messages.find((m) => Array.isArray(m) && m[0] === name) as [string, unknown] | undefined;
  const outputs = outputFiles(e.outputs);
  // Builds before execution status was recorded leave `status` null: an entry in history then means done.
  if (status.status_str === 'error') {
    if (event('execution_interrupted')) return { state: 'canceled', outputs };
    return { state: 'failed', outputs, failure: failureOf(event('execution_error')?.[1]) };
  }
  return { state: 'succeeded', outputs };
}

/** From `GET /queue`: queued and running prompts are `[number, prompt_id, prompt, extra_data, outputs]`. */
export function fromQueue(queue: unknown, promptId: string): PromptStatus {
  const q = obj(queue);
  const has = (list: unknown) =>
    Array.isArray(list) && list.some((item) => Array.isArray(item) && item[1] === promptId);
  if (has(q.queue_running)) return { state: 'running', outputs: [] };
  if (has(q.queue_pending)) return { state: 'pending', outputs: [] };
  return UNKNOWN;
}

function failureOf(data: unknown): PromptFailure {
  const d = obj(data);
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    nodeType: text(d.node_type),
    exceptionType: text(d.exception_type),
    exceptionMessage: text(d.exception_message),
  };
}

/**
 * Every file in a prompt's outputs. Nodes list them under different keys: core SaveVideo and
 * SaveWEBM under "images" (with "animated": [true]), VideoHelperSuite's VHS_VideoCombine under "gifs".
 */
export function outputFiles(outputs: unknown): OutputFile[] {
  const files: OutputFile[] = [];
  for (const nodeOutput of Object.values(obj(outputs))) {
    for (const [key, list] of Object.entries(obj(nodeOutput))) {
      if (key === 'animated' || !Array.isArray(list)) continue;
      for (const item of list) {
        const f = obj(item);
        if (typeof f.filename !== 'string' || f.filename === '') continue;
        files.push({
          filename: f.filename,
          subfolder: typeof f.subfolder === 'string' ? f.subfolder : '',
          type: typeof f.type === 'string' ? f.type : 'output',
        });
      }
    }
  }
  return files;
}

const VIDEO_EXTENSIONS = ['.mp4', '.webm', '.gif'];

/** The video to fetch: saved outputs before previews in temp, then MP4, WebM, GIF in that order. */
export function pickVideo(files: OutputFile[]): OutputFile | undefined {
  const rank = (f: OutputFile) => {
    const ext = VIDEO_EXTENSIONS.findIndex((e) => f.filename.toLowerCase().endsWith(e));
    return ext < 0 ? Infinity : (f.type === 'output' ? 0 : 10) + ext;
  };
  const candidates = files.filter((f) => rank(f) !== Infinity).sort((a, b) => rank(a) - rank(b));
  return candidates[0];
}
