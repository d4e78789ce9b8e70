/**
 * "Runs" a validated prompt the way ComfyUI's PromptExecutor does, message for message: the model
 * nodes are stood in for by ffmpeg, which makes a real video of the asked size, length and rate
 * (testsrc2 for text-to-video, the uploaded picture for image-to-video). KSampler reports steps.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SAVE_VIDEO_CODECS, type Prompt } from './standin-nodes.ts';
import { saveVideoAudioArgs } from './standin-audio.ts';
import { runReferenceNode } from './standin-reference-nodes.ts';

export interface QueueItem {
  number: number;
  id: string;
  prompt: Prompt;
  extra: Record<string, unknown>;
  outputs: string[];
}

export interface ExecutionHost {
  /**
   * 0.3.5x–0.3.6x builds: an interrupt is seen only when the next node starts, so the
   * running node (the whole sampler here) finishes first. Newer builds also check between sampler
   * steps; the stand-in's sampler is one ffmpeg run, so it stops at once.
   */
  interruptsBetweenNodesOnly?: boolean;
  /** Newer builds report `progress_state` (comfy_execution/progress.py WebUIProgressHandler), broadcast. */
  progressState?: boolean;
  /** A node class that raises at run time, as a real node does on a workflow mistake (SaveVideo with an unsupported codec: ValueError). */
  nodeError?: () => { classType: string; exceptionType: string; message: string } | undefined;
  ffmpeg: string;
  dirs: { input: string; output: string; temp: string };
  /** Render in real time, as slow as a GPU would be. */
  slow(): boolean;
  send(event: string, data: Record<string, unknown>, sid: string | undefined): void;
  /** Told of sampler progress, for the fault switches. */
  onSamplerProgress(item: QueueItem, fraction: number): void;
}

export interface ExecutionResult {
  status_str: 'success' | 'error';
  completed: boolean;
  messages: Array<[string, Record<string, unknown>]>;
  outputs: Record<string, unknown>;
  meta: Record<string, unknown>;
}

/** ComfyUI's InterruptProcessingException. */
export class Interrupted extends Error {}

class NodeFailure extends Error {
  constructor(
    readonly exceptionType: string,
    message: string,
  ) {
    super(message);
  }
}

type Value = Record<string, unknown>;

/** `interrupt` is POST /interrupt's flag; `kill` ends the process (a crash, close()) and stops everything at once. */
export async function executePrompt(
  item: QueueItem,
  host: ExecutionHost,
  interrupt: AbortSignal,
  kill: AbortSignal,
): Promise<ExecutionResult> {
  const stopped = AbortSignal.any([interrupt, kill]);
  const signal = host.interruptsBetweenNodesOnly ? kill : stopped;
  const states = new Map<string, { value: number; max: number; state: string }>();
  const progressState = (id: string, state: string, value: number, max: number) => {
    if (!host.progressState) return;
    states.set(id, { value, max, state });
    const nodes = Object.fromEntries(
      [...states].map(([n, st]) => [
        n,
        { ...st, node_id: n, prompt_id: item.id, display_node_id: n, parent_node_id: null, real_node_id: n },
      ]),
    );
    host.send('progress_state', { prompt_id: item.id, nodes }, undefined);
  };
  const sid = typeof item.extra.client_id === 'string' ? item.extra.client_id : undefined;
  const result: ExecutionResult = { status_str: 'success', completed: true, messages: [], outputs: {}, meta: {} };
  const message = (event: string, data: Record<string, unknown>, broadcast = false) => {
    const stamped = { ...data, timestamp: Date.now() };
    result.messages.push([event, stamped]);
    if (sid !== undefined || broadcast) host.send(event, stamped, sid);
  };
  message('execution_start', { prompt_id: item.id });
  message('execution_cached', { nodes: [], prompt_id: item.id });
  const values = new Map<string, Value[]>();
  const executed: string[] = [];
  for (const id of executionOrder(item.prompt, item.outputs)) {
    const node = item.prompt[id];
    host.send('executing', { node: id, display_node: id, prompt_id: item.id }, sid);
    try {
      // execution.py checks the interrupt flag before every node, whatever the build.
      if (stopped.aborted) throw new Interrupted();
      progressState(id, 'running', 0, 1);
      const raise = host.nodeError?.();
      if (raise && raise.classType === node.class_type) throw new NodeFailure(raise.exceptionType, raise.message);
      const inputs = resolveInputs(node.inputs ?? {}, values);
      const { outputs, ui } = await runNode(String(node.class_type), inputs, {
        id,
        item,
        host,
        signal,
        sid,
        progressState,
      });
      values.set(id, outputs);
      executed.push(id);
      progressState(id, 'finished', 1, 1);
      if (ui) {
        result.outputs[id] = ui;
        result.meta[id] = { node_id: id, display_node: id, parent_node: null, real_node_id: id };
        host.send('executed', { node: id, display_node: id, output: ui, prompt_id: item.id }, sid);
      }
    } catch (err) {
      const base = { prompt_id: item.id, node_id: id, node_type: String(node.class_type), executed };
      if (err instanceof Interrupted) message('execution_interrupted', base, true);
      else {
        const f = err instanceof NodeFailure ? err : new NodeFailure('RuntimeError', String(err));
        message('execution_error', {
          ...base,
          exception_message: f.message,
          exception_type: f.exceptionType,
          traceback: ['  File "execution.py", line 496, in execute\n'],
          current_inputs: {},
          current_outputs: [],
        });
      }
      return { ...result, status_str: 'error', completed: false };
    }
  }
  message('execution_success', { prompt_id: item.id });
  return result;
}

/** Ancestors before the nodes that need them, only what the outputs to execute depend on. */
function executionOrder(prompt: Prompt, outputs: string[]): string[] {
  const order: string[] = [];
  const visit = (id: string) => {
    if (order.includes(id)) return;
    for (const v of Object.values(prompt[id].inputs ?? {})) if (Array.isArray(v) && v.length === 2) visit(String(v[0]));
    order.push(id);
  };
  outputs.forEach(visit);
  return order;
}

function resolveInputs(inputs: Record<string, unknown>, values: Map<string, Value[]>): Value {
  return Object.fromEntries(
    Object.entries(inputs).map(([k, v]) => [
      k,
      Array.isArray(v) && v.length === 2 ? values.get(String(v[0]))?.[Number(v[1])] : v,
    ]),
  );
}

interface NodeRun {
  id: string;
  item: QueueItem;
  host: ExecutionHost;
  signal: AbortSignal;
  sid: string | undefined;
  progressState(id: string, state: string, value: number, max: number): void;
}

async function runNode(
  type: string,
  i: Value,
  run: NodeRun,
): Promise<{ outputs: Value[]; ui?: Record<string, unknown> }> {
  if (run.signal.aborted) throw new Interrupted();
  const latent = (multiple: number, image?: unknown) => ({
    width: Math.floor(Number(i.width) / multiple) * multiple,
    height: Math.floor(Number(i.height) / multiple) * multiple,
    // The Wan VAE compresses time 4x: it makes 4n+1 frames whatever length it is given.
    frames: Math.floor((Number(i.length) - 1) / 4) * 4 + 1,
    image: (image as Value | undefined)?.path,
  });
  switch (type) {
    case 'LoadImage':
      return { outputs: [await loadImage(run.host.dirs.input, String(i.image)), {}] };
    case 'CLIPTextEncode':
      return { outputs: [{ text: i.text }] };
    case 'Wan22ImageToVideoLatent':
      return { outputs: [latent(16, i.start_image)] };
    case 'WanImageToVideo':
      return { outputs: [i.positive as Value, i.negative as Value, latent(8, i.start_image)] };
    case 'EmptyHunyuanLatentVideo':
      return { outputs: [latent(8)] };
    case 'KSampler':
      return { outputs: [await sample(i, run)] };
    case 'VAEDecode':
      return { outputs: [i.samples as Value] };
    case 'LoadAudio':
      return { outputs: [{ path: join(run.host.dirs.input, String(i.audio)) }] };
    case 'CreateVideo':
      return {
        outputs: [{ ...(i.images as Value), fps: Number(i.fps), audio: (i.audio as Value | undefined)?.path }],
      };
    case 'SaveVideo':
      // comfy_extras/nodes_video.py: the container writes only the codecs it knows.
      if (i.codec !== undefined && !SAVE_VIDEO_CODECS.includes(String(i.codec)))
        throw new NodeFailure('ValueError', `Unsupported codec: ${String(i.codec)}`);
      return save(i.video as Value, Number((i.video as Value).fps), String(i.filename_prefix), 'mp4', run, 'images');
    case 'SaveWEBM':
      return save(i.images as Value, Number(i.fps), String(i.filename_prefix), 'webm', run, 'images');
    case 'VHS_VideoCombine': {
      const ext = ({ 'image/gif': 'gif', 'video/webm': 'webm' } as Record<string, string>)[String(i.format)] ?? 'mp4';
      return save(
        i.images as Value,
        Number(i.frame_rate),
        String(i.filename_prefix),
        ext,
        run,
        'gifs',
        i.save_output === false ? 'temp' : 'output',
      );
    }
    default: {
      const outputs = runReferenceNode(type, i, (exceptionType, message) => {
        throw new NodeFailure(exceptionType, message);
      });
      return { outputs: (outputs as Value[] | undefined) ?? [{ class_type: type }] };
    }
  }
}

async function loadImage(inputDir: string, name: string): Promise<Value> {
  const path = join(inputDir, name);
  const head = (await readFile(path)).subarray(0, 8);
  const png = head.equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const jpeg = head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
  if (!png && !jpeg) throw new NodeFailure('PIL.UnidentifiedImageError', `cannot identify image file '${path}'`);
  return { path };
}

/** The "diffusion": renders the frames into an intermediate file, reporting one step at a time. */
async function sample(i: Value, run: NodeRun): Promise<Value> {
  const l = i.latent_image as { width: number; height: number; frames: number; image?: string };
  const steps = Number(i.steps);
  const out = join(run.host.dirs.temp, `${run.item.id}-${run.id}.mkv`);
  const realtime = run.host.slow() ? ['-re'] : [];
  const source = l.image
    ? [...realtime, '-loop', '1', '-framerate', '24', '-i', l.image]
    : [...realtime, '-f', 'lavfi', '-i', `testsrc2=size=${l.width}x${l.height}:rate=24`];
  const look = l.image
    ? `scale=${l.width}:${l.height}:force_original_aspect_ratio=increase,crop=${l.width}:${l.height}`
    : `hue=h=${Number(i.seed) % 360}`;
  let reported = 0;
  await ffmpeg(
    run.host.ffmpeg,
    [
      ...source,
      '-vf',
      `${look},format=yuv420p`,
      '-frames:v',
      String(l.frames),
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-crf',
      '18',
      '-f',
      'matroska',
      out,
    ],
    run.signal,
    (frame) => {
      const value = Math.min(steps, Math.floor((steps * frame) / l.frames));
      if (value <= reported) return;
      reported = value;
      run.host.send('progress', { value, max: steps, prompt_id: run.item.id, node: run.id }, run.sid);
      run.progressState(run.id, 'running', value, steps);
      run.host.onSamplerProgress(run.item, value / steps);
    },
  );
  return { ...l, clip: out };
}

async function save(
  video: Value,
  fps: number,
  prefix: string,
  ext: string,
  run: NodeRun,
  key: string,
  type = 'output',
) {
  const subfolder = dirname(prefix) === '.' ? '' : dirname(prefix);
  const folder = join(type === 'output' ? run.host.dirs.output : run.host.dirs.temp, subfolder);
  await mkdir(folder, { recursive: true });
  const taken = (await readdir(folder)).filter((f) => f.startsWith(`${basename(prefix)}_`)).length;
  const filename = `${basename(prefix)}_${String(taken + 1).padStart(5, '0')}_.${ext}`;
  const codec: Record<string, string[]> = {
    mp4: ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-f', 'mp4'],
    webm: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '0', '-crf', '40', '-f', 'webm'],
    gif: ['-f', 'gif'],
  };
  const tmp = join(run.host.dirs.temp, `${run.item.id}-${run.id}.${ext}`);
  // A CreateVideo's audio, cut to the picture and never padded, at its own rate (standin-audio.ts).
  const audio =
    video.audio && ext === 'mp4'
      ? await saveVideoAudioArgs(run.host.ffmpeg, String(video.audio), fps, Number(video.frames))
      : [];
  await ffmpeg(
    run.host.ffmpeg,
    ['-i', String(video.clip), ...audio, '-vf', `setpts=N/(${fps}*TB)`, '-r', String(fps), ...codec[ext], tmp],
    run.signal,
  );
  await rename(tmp, join(folder, filename));
  const file = { filename, subfolder, type };
  const entry =
    key === 'gifs'
      ? {
          ...file,
          format: ext === 'gif' ? 'image/gif' : `video/${ext === 'mp4' ? 'h264-mp4' : ext}`,
          frame_rate: fps,
          workflow: `${filename}.png`,
          fullpath: join(folder, filename),
        }
      : file;
  return {
    outputs: [{ files: [entry] }],
    ui: key === 'gifs' ? { gifs: [entry] } : { images: [entry], animated: [true] },
  };
}

/** One ffmpeg process; on interrupt it is killed and waited for, so nothing outlives the prompt. */
function ffmpeg(bin: string, args: string[], signal: AbortSignal, onFrame?: (frame: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Interrupted());
    const child = spawn(bin, ['-hide_banner', '-loglevel', 'error', '-nostats', '-progress', 'pipe:1', ...args, '-y'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const kill = () => child.kill('SIGKILL');
    signal.addEventListener('abort', kill, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const m of chunk.matchAll(/^frame=(\d+)/gm)) onFrame?.(Number(m[1]));
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
    child.on('close', (code) => {
      signal.removeEventListener('abort', kill);
      if (signal.aborted) reject(new Interrupted());
      else if (code === 0) resolve();
      else reject(new NodeFailure('RuntimeError', `ffmpeg failed: ${stderr.trim()}`));
    });
  });
}
