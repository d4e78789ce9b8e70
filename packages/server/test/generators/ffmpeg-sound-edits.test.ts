import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { FfmpegRenderer } from '../../src/generators/ffmpeg/ffmpeg-renderer.ts';
import { TARGET_LUFS } from '../../src/generators/ffmpeg/sound/soundtrack.ts';
import { tempo } from '../../src/generators/ffmpeg/sound/edit-sound.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { checkVideoFile } from '../../src/media/video-input.ts';
import { measureLoudness } from '../../src/media/audio-loudness.ts';
import { probeVideo, verifyVideo } from '../../src/media/video-probe.ts';
import { memoryCheckpoint, type GenerationJob, type InputVideo } from '../../src/generators/generator.ts';
import { decodePcm, dominantHz, mono, rmsDb } from '../support/audio-analysis.ts';

const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
const renderer = new FfmpegRenderer({ ffmpeg: bins.ffmpeg, threads: 2 });
const RATE = 48000;

/**
 * Seam threshold of an extension: the level of the 100 ms either side of the seam differs by less
 * than SEAM_LEVEL_DB, and no sample step within 5 ms of it exceeds the largest step of the second
 * before it (a click is a step far larger than the sound's own).
 */
const SEAM_LEVEL_DB = 3;

describe('sound of edits and extensions', () => {
  let dir: string;
  /** 4 s: 440 Hz for 2 s, then 880 Hz, rising in level; a known sound to follow through the edits. */
  let tones: InputVideo;
  /** The same picture without sound. */
  let mute: InputVideo;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-sound-edits-'));
    const make = async (name: string, audio: boolean) => {
      const path = join(dir, name);
      await run(bins.ffmpeg, [
        ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=320x180:r=24:d=4'],
        ...(audio ? ['-f', 'lavfi', '-i', "aevalsrc='0.1*(1+t)*sin(2*PI*if(lt(t,2),440,880)*t)':s=48000:d=4"] : []),
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'],
        ...(audio ? ['-c:a', 'aac', '-ac', '2'] : []),
        ...['-y', path],
      ]);
      const facts = await checkVideoFile((file) => probeVideo(bins.ffprobe, file), path);
      return { ...facts, path, hasAudio: facts.audioStreams > 0 };
    };
    tones = await make('tones.mp4', true);
    mute = await make('mute.mp4', false);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const render = async (job: Partial<GenerationJob>) => {
    const workDir = await mkdtemp(join(dir, 'job-'));
    const video = job.video ?? tones;
    const out = await renderer.generate(
      {
        taskId: 't',
        attempt: 1,
        kind: 'edit',
        prompt: 'make it black and white',
        width: 320,
        height: 180,
        duration: video.durationSeconds,
        fps: 24,
        seed: 1,
        images: [],
        video,
        audio: true,
        ...job,
      },
      {
        signal: new AbortController().signal,
        stopReason: () => undefined,
        onProgress: () => {},
        workDir,
        checkpoint: memoryCheckpoint(),
      },
    );
    const seconds = job.kind === 'extend' ? video.durationSeconds + (job.duration ?? 0) : video.durationSeconds;
    const expect = { width: 320, height: 180, durationSeconds: seconds, audio: job.audio ?? true };
    // Every output passes the engine's own check, sound rule included.
    await verifyVideo(bins.ffprobe, out.path, expect, bins.ffmpeg);
    return out.path;
  };
  const second = (pcm: Float32Array, from: number, to: number) => pcm.subarray(from * RATE, to * RATE);

  it('chains atempo within the 0.5 to 2 that ffmpeg 4.1 takes', () => {
    assert.deepEqual(tempo(0.5), ['atempo=0.5']);
    assert.deepEqual(tempo(0.25), ['atempo=0.5', 'atempo=0.5']);
    assert.deepEqual(tempo(3), ['atempo=2', 'atempo=1.5']);
    assert.deepEqual(tempo(1), []);
  });

  it('a colour grade keeps the sound as it was', async () => {
    const pcm = mono(await decodePcm(bins.ffmpeg, await render({ prompt: 'make it black and white' })));
    assert.ok(Math.abs(dominantHz(second(pcm, 0.2, 1.8)) - 440) < 10);
    assert.ok(Math.abs(dominantHz(second(pcm, 2.2, 3.8)) - 880) < 10);
  });

  it('slow motion stretches the same first half, at the same pitch', async () => {
    const pcm = mono(await decodePcm(bins.ffmpeg, await render({ prompt: 'slow motion' })));
    // The first 2 s (440 Hz) now last 4 s; atempo keeps the pitch where a resample would halve it.
    assert.ok(Math.abs(dominantHz(second(pcm, 0.2, 1.8)) - 440) < 10);
    assert.ok(Math.abs(dominantHz(second(pcm, 2.2, 3.8)) - 440) < 10);
  });

  it('a time-lapse plays the whole clip faster, at the same pitch', async () => {
    const pcm = mono(await decodePcm(bins.ffmpeg, await render({ prompt: 'time-lapse' })));
    // Twice as fast, twice over: 440 Hz for the first second, 880 Hz for the second.
    assert.ok(Math.abs(dominantHz(second(pcm, 0.1, 0.9)) - 440) < 10);
    assert.ok(Math.abs(dominantHz(second(pcm, 1.1, 1.9)) - 880) < 10);
  });

  it('reverse plays the sound backwards', async () => {
    const pcm = mono(await decodePcm(bins.ffmpeg, await render({ prompt: 'play it backwards' })));
    assert.ok(Math.abs(dominantHz(second(pcm, 0.2, 1.8)) - 880) < 10);
    assert.ok(Math.abs(dominantHz(second(pcm, 2.2, 3.8)) - 440) < 10);
    // The input rises in level; backwards it falls.
    assert.ok(rmsDb(pcm, 0, RATE) > rmsDb(pcm, 3 * RATE, 4 * RATE) + 3);
  });

  it('without a request for sound the edit has none, even of an input with sound', async () => {
    const out = await render({ prompt: 'slow motion', audio: false });
    assert.equal((await probeVideo(bins.ffprobe, out)).audioStreams, 0);
  });

  it('an input without sound gets a composed track only when one is asked for', async () => {
    const out = await render({ prompt: 'make it sepia', video: mute });
    assert.ok(Math.abs((await measureLoudness(bins.ffmpeg, out)) - TARGET_LUFS) <= 1);
    const silent = await render({ prompt: 'make it sepia', video: mute, audio: false });
    assert.equal((await probeVideo(bins.ffprobe, silent)).audioStreams, 0);
    const extended = await render({ kind: 'extend', prompt: 'rain in a forest', duration: 2, video: mute });
    assert.ok(Math.abs((await measureLoudness(bins.ffmpeg, extended)) - TARGET_LUFS) <= 1);
  });

  it('an extension continues the sound across the seam without a click or a jump in level', async () => {
    // The usual input: a generated clip with its own soundtrack.
    const workDir = await mkdtemp(join(dir, 'src-'));
    const generated = await renderer.generate(
      {
        ...{ taskId: 's', attempt: 1, kind: 'generate', prompt: 'waves on a beach', width: 320, height: 180 },
        ...{ duration: 3, fps: 24, seed: 2, images: [], audio: true },
      },
      {
        signal: new AbortController().signal,
        stopReason: () => undefined,
        onProgress: () => {},
        workDir,
        checkpoint: memoryCheckpoint(),
      },
    );
    const facts = await checkVideoFile((file) => probeVideo(bins.ffprobe, file), generated.path);
    const input: InputVideo = { ...facts, path: generated.path, hasAudio: true };
    const out = await render({ kind: 'extend', prompt: 'waves on a beach', duration: 2, video: input });
    const pcm = mono(await decodePcm(bins.ffmpeg, out));
    const before = mono(await decodePcm(bins.ffmpeg, generated.path));
    const seam = 3 * RATE;
    // The input's sound is kept as it was up to the crossfade before the seam.
    const kept = rmsDb(pcm, RATE, 2 * RATE) - rmsDb(before, RATE, 2 * RATE);
    assert.ok(Math.abs(kept) < 0.5, `kept part changed by ${kept.toFixed(2)} dB`);
    const level = rmsDb(pcm, seam, seam + RATE / 10) - rmsDb(pcm, seam - RATE / 10, seam);
    assert.ok(Math.abs(level) < SEAM_LEVEL_DB, `level step at the seam ${level.toFixed(2)} dB`);
    const step = (from: number, to: number) => {
      let max = 0;
      for (let i = from + 1; i < to; i++) max = Math.max(max, Math.abs(pcm[i] - pcm[i - 1]));
      return max;
    };
    const near = step(seam - RATE / 200, seam + RATE / 200);
    const usual = step(seam - RATE - RATE / 200, seam - RATE / 200);
    assert.ok(near <= usual, `largest step at the seam ${near.toFixed(4)}, in the second before ${usual.toFixed(4)}`);
    // The whole track stays at the input's loudness, not louder or quieter after it.
    const after = rmsDb(pcm, seam + RATE / 2, 5 * RATE - RATE / 10) - rmsDb(pcm, RATE / 10, seam - RATE / 2);
    assert.ok(Math.abs(after) < 4, `level after the seam differs by ${after.toFixed(2)} dB`);
  });
});
