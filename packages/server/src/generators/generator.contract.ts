/**
 * What every backend must do, whatever it is (the built-in renderer, a ComfyUI host, a relay): run
 * by each implementation's test file against the real thing. Jobs are tiny so the suite stays fast.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, isAbsolute } from 'node:path';
import sharp from 'sharp';
import {
  memoryCheckpoint,
  stopReasonOf,
  type GenerationContext,
  type GenerationJob,
  type Generator,
} from './generator.ts';
import { TaskFailure } from '../domain/task-failure.ts';
import { verifyVideo } from '../media/video-probe.ts';

export interface GeneratorFixture {
  generator: Generator;
  /** ffprobe used to verify outputs (see media/ffmpeg-binaries.ts). */
  ffprobe: string;
  cleanup?: () => Promise<void>;
}

export interface GeneratorContractOptions {
  /**
   * Whether the same job must give byte-identical files. True for local renderers (x264 is
   * deterministic for a fixed thread count); a backend behind a remote model may opt out.
   */
  deterministic?: boolean;
  /** How long a canceled job may take to settle, measured from the abort. */
  cancelWithinMs?: number;
}

export function generatorContract(
  name: string,
  makeGenerator: () => Promise<GeneratorFixture>,
  options: GeneratorContractOptions = {},
): void {
  describe(`generator contract: ${name}`, () => {
    const h = new Harness(makeGenerator);
    before(() => h.open());
    after(() => h.close());
    outputTests(h);
    progressAndCancelTests(h, options);
    sameInputAndFailureTests(h, options);
  });
}

/** Fixture, scratch directory and job helpers shared by the contract's tests. */
class Harness {
  fx!: GeneratorFixture;
  root = '';
  inputPng = '';

  constructor(private readonly make: () => Promise<GeneratorFixture>) {}

  async open(): Promise<void> {
    this.fx = await this.make();
    this.root = await mkdtemp(join(tmpdir(), 'vidgen-generator-contract-'));
    this.inputPng = join(this.root, 'input.png');
    await writeFile(this.inputPng, await samplePicture(640, 480));
  }

  async close(): Promise<void> {
    await this.fx?.cleanup?.();
    if (this.root) await rm(this.root, { recursive: true, force: true });
  }

  job(overrides: Partial<GenerationJob> = {}): GenerationJob {
    return {
      taskId: randomUUID(),
      attempt: 1,
      kind: 'generate',
      prompt: 'a quiet lake at dawn, slow push in',
      width: 320,
      height: 180,
      duration: 1,
      fps: 24,
      seed: 7,
      images: [],
      ...overrides,
    };
  }

  async context(signal = new AbortController().signal) {
    const progress: number[] = [];
    const workDir = await mkdtemp(join(this.root, 'work-'));
    const ctx: GenerationContext = {
      signal,
      stopReason: stopReasonOf(signal),
      workDir,
      onProgress: (p) => progress.push(p),
      checkpoint: memoryCheckpoint(),
    };
    return { ctx, progress, workDir };
  }

  /** Runs a job to completion; the output must lie inside the job's workDir. */
  async generate(job: GenerationJob) {
    const { ctx, progress, workDir } = await this.context();
    const out = await this.fx.generator.generate(job, ctx);
    const rel = relative(workDir, out.path);
    assert.ok(rel && !rel.startsWith('..') && !isAbsolute(rel), 'the output must be inside workDir');
    return { path: out.path, progress };
  }

  async verified(job: GenerationJob) {
    const out = await this.generate(job);
    await verifyVideo(this.fx.ffprobe, out.path, {
      width: job.width,
      height: job.height,
      durationSeconds: job.duration,
      fps: job.fps,
    });
    return out;
  }
}

function outputTests(h: Harness): void {
  it('offers generate', () => {
    assert.ok(h.fx.generator.kinds.includes('generate'));
  });

  it('text-to-video makes a verified MP4 of the exact size and duration', async () => {
    await h.verified(h.job({ prompt: 'sunset over the ocean' }));
  });

  it('image-to-video makes a verified MP4, also in another aspect ratio than the image', async () => {
    await h.verified(
      h.job({ images: [h.inputPng], width: 180, height: 320, duration: 2, prompt: 'pan left across the scene' }),
    );
  });
}

function progressAndCancelTests(h: Harness, options: GeneratorContractOptions): void {
  it('reports progress within 0..1, never backwards, ending near 1', async () => {
    const { progress } = await h.generate(h.job({ duration: 2 }));
    assert.ok(progress.length > 0, 'no progress was reported');
    for (const [i, p] of progress.entries()) {
      assert.ok(p >= 0 && p <= 1, `progress ${p} is outside 0..1`);
      if (i > 0) assert.ok(p >= progress[i - 1], `progress went back from ${progress[i - 1]} to ${p}`);
    }
    assert.ok(progress[progress.length - 1] >= 0.99, `progress ended at ${progress[progress.length - 1]}`);
  });

  it('stops promptly when aborted mid-render, rejecting as canceled and leaving no process', async () => {
    const controller = new AbortController();
    const { ctx } = await h.context(controller.signal);
    const childrenBefore = await childPids();
    let abortedAt = 0;
    const abort = () => {
      if (!abortedAt) {
        abortedAt = Date.now();
        controller.abort();
      }
    };
    // Long enough that no backend finishes before the abort lands: at the first sign of encoding
    // progress, or after 400 ms, whichever comes first.
    const long = h.job({ width: 1280, height: 720, duration: 15, prompt: 'a forest, slow pan right' });
    const running = h.fx.generator.generate(long, { ...ctx, onProgress: (p) => p > 0.06 && abort() });
    const timer = setTimeout(abort, 400);
    const err = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    clearTimeout(timer);
    assert.ok(err instanceof TaskFailure, 'an aborted job must reject with a TaskFailure');
    assert.equal(err.code, 'canceled');
    assert.equal(err.retryable, false);
    const took = Date.now() - abortedAt;
    assert.ok(took < (options.cancelWithinMs ?? 3000), `cancel took ${took} ms`);
    const leaked = (await childPids()).filter((pid) => !childrenBefore.includes(pid));
    assert.deepEqual(leaked, [], 'processes were left running');
  });

  it('rejects as canceled without work when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { ctx } = await h.context(controller.signal);
    await assert.rejects(
      h.fx.generator.generate(h.job(), ctx),
      (e: unknown) => e instanceof TaskFailure && e.code === 'canceled',
    );
  });
}

function sameInputAndFailureTests(h: Harness, options: GeneratorContractOptions): void {
  it('gives the same output for the same job', { skip: options.deterministic === false }, async () => {
    const j = h.job({ prompt: 'night sky full of stars over the mountains, zoom out', seed: 42 });
    const a = await h.generate(j);
    const b = await h.generate({ ...j, taskId: randomUUID(), attempt: 2 });
    assert.equal(await sha256(a.path), await sha256(b.path));
  });

  it('fails with a TaskFailure that says whether to retry, and keeps paths out of its message', async () => {
    const broken = join(h.root, 'broken.png');
    await writeFile(broken, Buffer.from('this is not a picture'));
    const { ctx } = await h.context();
    const err = await h.fx.generator.generate(h.job({ images: [broken] }), ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof TaskFailure, 'failures must be TaskFailures');
    assert.equal(typeof err.retryable, 'boolean');
    assert.match(err.code, /^[a-z_]+$/);
    assert.ok(err.message.length > 0);
    assert.ok(!err.message.includes(h.root), 'the message must not reveal file paths');
  });
}

/** A small photo-like picture: sky gradient, sun, hills, and grain, so encoders see real detail. */
export async function samplePicture(width: number, height: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3b6fb6"/>
<stop offset="1" stop-color="#f3c58e"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#s)"/>
<circle cx="${width * 0.7}" cy="${height * 0.35}" r="${height * 0.08}" fill="#fff4c8"/>
<path fill="#3f6d3b"
d="M0 ${height * 0.62} Q${width * 0.3} ${height * 0.45} ${width * 0.6} ${height * 0.64}
T${width} ${height * 0.58} V${height} H0 Z"/>
<rect x="${width * 0.1}" y="${height * 0.7}" width="${width * 0.08}" height="${height * 0.12}" fill="#b33a3a"/></svg>`;
  const base = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let state = 12345;
  for (let i = 0; i < base.data.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    base.data[i] = Math.max(0, Math.min(255, base.data[i] + ((state >>> 16) % 25) - 12));
  }
  return sharp(base.data, { raw: base.info }).blur(0.8).png().toBuffer();
}

async function sha256(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/** Live child processes of this process (Linux /proc); elsewhere the leak check is skipped. */
export async function childPids(): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Fields after the parenthesised command name: state, ppid, ...
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === process.pid && state !== 'Z') pids.push(Number(entry));
  }
  return pids;
}
