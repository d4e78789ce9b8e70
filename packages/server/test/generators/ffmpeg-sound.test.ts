import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { FfmpegRenderer } from '../../src/generators/ffmpeg/ffmpeg-renderer.ts';
import { soundScene } from '../../src/generators/ffmpeg/sound/sound-scene.ts';
import { TARGET_LUFS } from '../../src/generators/ffmpeg/sound/soundtrack.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { measureLoudness } from '../../src/media/audio-loudness.ts';
import { memoryCheckpoint, type GenerationJob } from '../../src/generators/generator.ts';
import { OutputRejected, probeVideo, verifyVideo } from '../../src/media/video-probe.ts';
import { decodePcm, mono, OCTAVES, octaveBands } from '../support/audio-analysis.ts';

const run = promisify(execFile);
const bins = resolveFfmpegBinaries({});
const renderer = new FfmpegRenderer({ ffmpeg: bins.ffmpeg, threads: 2 });

describe('renderer soundtrack', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-sound-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const render = async (job: Partial<GenerationJob>) => {
    const workDir = await mkdtemp(join(dir, 'job-'));
    const out = await renderer.generate(
      {
        taskId: 't',
        attempt: 1,
        kind: 'generate',
        prompt: 'waves on a beach',
        width: 320,
        height: 180,
        duration: 3,
        fps: 24,
        seed: 1,
        images: [],
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
    return out.path;
  };
  const pcmHash = async (file: string) => {
    const { stdout } = await run(bins.ffmpeg, ['-v', 'error', '-i', file, '-map', '0:a:0', '-f', 's16le', 'pipe:1'], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    return createHash('sha256').update(stdout).digest('hex');
  };

  it('asked for: one stereo AAC stream as long as the picture, at the target loudness', async () => {
    const file = await render({ audio: true, duration: 4 });
    const probe = await verifyVideo(
      bins.ffprobe,
      file,
      { width: 320, height: 180, durationSeconds: 4, audio: true },
      bins.ffmpeg,
    );
    assert.equal(probe.audioStreams, 1);
    assert.deepEqual(
      { codec: probe.audio?.codec, channels: probe.audio?.channels, rate: probe.audio?.sampleRate },
      { codec: 'aac', channels: 2, rate: 48000 },
    );
    assert.ok(Math.abs((probe.audio?.durationSeconds ?? 0) - probe.durationSeconds) <= 1 / 24, 'within one frame');
    const lufs = await measureLoudness(bins.ffmpeg, file);
    assert.ok(Math.abs(lufs - TARGET_LUFS) <= 1, `integrated loudness ${lufs} LUFS, target ${TARGET_LUFS}`);
    // Faded: the first and last samples are (almost) zero, so the track neither starts nor ends on a click.
    const pcm = await decodePcm(bins.ffmpeg, file);
    assert.ok(Math.abs(pcm.left[0]) < 0.01 && Math.abs(pcm.left[pcm.left.length - 1]) < 0.02);
  });

  it('not asked for: no audio stream, and the check holds each way', async () => {
    const silent = await render({ audio: false });
    assert.equal((await probeVideo(bins.ffprobe, silent)).audioStreams, 0);
    const expect = { width: 320, height: 180, durationSeconds: 3 };
    await verifyVideo(bins.ffprobe, silent, { ...expect, audio: false }, bins.ffmpeg);
    await assert.rejects(verifyVideo(bins.ffprobe, silent, { ...expect, audio: true }, bins.ffmpeg), OutputRejected);
    const sounding = await render({ audio: true });
    await assert.rejects(
      verifyVideo(bins.ffprobe, sounding, { ...expect, audio: false }, bins.ffmpeg),
      /has sound, and none was asked for/,
    );
  });

  it('refuses a silent track and a track of the wrong length', async () => {
    const video = await render({ audio: false });
    const mux = async (name: string, source: string) => {
      const out = join(dir, name);
      await run(bins.ffmpeg, [
        ...['-v', 'error', '-i', video, '-f', 'lavfi', '-t', '3', '-i', source],
        ...['-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac', '-y', out],
      ]);
      return out;
    };
    const expect = { width: 320, height: 180, durationSeconds: 3, audio: true };
    const silence = await mux('silence.mp4', 'anullsrc=r=48000:cl=stereo');
    await assert.rejects(verifyVideo(bins.ffprobe, silence, expect, bins.ffmpeg), /silent/);
    const short = await mux('short.mp4', 'sine=f=440:r=48000:d=2');
    await assert.rejects(verifyVideo(bins.ffprobe, short, expect, bins.ffmpeg), /sound lasts 2\.0\d+ s/);
  });

  it('the same prompt and seed give the same samples; another seed another take', async () => {
    const a = await pcmHash(await render({ audio: true, seed: 7 }));
    const b = await pcmHash(await render({ audio: true, seed: 7 }));
    const c = await pcmHash(await render({ audio: true, seed: 8 }));
    assert.equal(a, b);
    assert.notEqual(a, c);
  });

  it('rain, surf, fire and city sound measurably different (energy per octave band)', async () => {
    const prompts = {
      rain: 'heavy rain falling on a window',
      surf: 'waves rolling onto a sandy beach',
      fire: 'a crackling campfire',
      city: 'a busy city street with traffic',
    };
    const bands: Record<string, number[]> = {};
    for (const [name, prompt] of Object.entries(prompts)) {
      assert.equal(soundScene(prompt)[0].kind, name === 'city' ? 'traffic' : name);
      bands[name] = octaveBands(mono(await decodePcm(bins.ffmpeg, await render({ prompt, audio: true, duration: 4 }))));
    }
    const names = Object.keys(bands);
    for (const [i, x] of names.entries()) {
      for (const y of names.slice(i + 1)) {
        // Each pair differs by at least 6 dB in some octave: clearly another sound, not another take.
        const gap = Math.max(...bands[x].map((v, k) => Math.abs(v - bands[y][k])));
        assert.ok(gap >= 6, `${x} vs ${y}: largest octave difference ${gap.toFixed(1)} dB`);
      }
    }
    // The character of each: rain is bright, traffic and surf sit low, fire has both ends.
    const share = (name: string, from: number, to: number) =>
      10 * Math.log10(bands[name].slice(from, to).reduce((s, db) => s + 10 ** (db / 10), 0));
    const high = OCTAVES.indexOf(2000);
    assert.ok(share('rain', high, OCTAVES.length) > share('city', high, OCTAVES.length) + 10);
    assert.ok(share('city', 0, 3) > share('rain', 0, 3) + 10);
  });

  it('reads the scene from the words', () => {
    assert.deepEqual(
      soundScene('a storm over the sea').map((p) => p.kind),
      ['rain', 'wind', 'surf'],
    );
    assert.equal(soundScene('a forest at night')[0].kind, 'insects');
    assert.equal(soundScene('a forest in spring')[0].kind, 'birds');
    assert.equal(soundScene('wind over snowy mountains')[0].kind, 'wind');
    assert.equal(soundScene('swirling abstract shapes')[0].kind, 'music');
    // "window" is not wind.
    assert.deepEqual(
      soundScene('rain on a window').map((p) => p.kind),
      ['rain'],
    );
  });
});
