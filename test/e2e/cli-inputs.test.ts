import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnInGroup } from './support/process-groups.ts';
import { collectOutput } from './support/process.ts';
import { startTestService, type TestService } from './support/service.ts';
import { decodedFrames, framed, picture } from './support/anchor-pictures.ts';
import { makeAudio } from './support/audio.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';
import { psnr } from '../../packages/server/test/support/colour-analysis.ts';

const { ffprobe } = resolveFfmpegBinaries({});
const VIDGEN_BIN = fileURLToPath(new URL('../../packages/client/bin/vidgen.mjs', import.meta.url));
const DEFAULT_MODELS = JSON.parse(
  await readFile(new URL('../../packages/server/src/catalog/default-models.json', import.meta.url), 'utf8'),
);

// `vidgen generate`'s input flags as a user runs them (its own process, a real server): local files
// are uploaded (family A) or sent as data URIs (family B), and the MP4 passes through each picture,
// checked by PSNR against the picture framed as the renderer frames it (docs/inputs.md). Small
// models of the same renderer keep the renders cheap.
describe('vidgen generate: --last-frame, --keyframe, --reference, --reference-audio', () => {
  let svc: TestService;
  let dir: string;
  let env: Record<string, string>;
  const files: Record<string, string> = {};
  const pictures: Record<string, Buffer> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-cli-inputs-'));
    const inputs = { last_frame: true, keyframes: 4, reference_images: 7, reference_audios: 3 };
    const small = { backend: 'renderer', resolution: '240p', aspect_ratios: ['16:9'], sound: { optional: false } };
    await writeFile(
      join(dir, 'models.json'),
      JSON.stringify({
        models: [
          ...DEFAULT_MODELS.models,
          { id: 'frames-a', family: 'A', durations: { min: 1, max: 4 }, inputs, ...small },
          { id: 'frames-b', family: 'B', durations: [2], inputs: { last_frame: true, reference_images: 7 }, ...small },
        ],
      }),
    );
    svc = await startTestService({ VIDGEN_MODELS_FILE: join(dir, 'models.json') });
    env = {
      VIDGEN_BASE_URL: svc.url,
      VIDGEN_API_KEY: await svc.createKey('cli-inputs'),
      VIDGEN_JOURNAL_DIR: join(dir, 'journal'),
    };
    const colours: Record<string, [string, string]> = {
      first: ['#1040c0', '#f0d020'],
      last: ['#c02040', '#20e0a0'],
      key: ['#302020', '#e0e0f0'],
      ref: ['#20a040', '#f080c0'],
    };
    for (const [name, [a, b]] of Object.entries(colours)) {
      pictures[name] = await picture(a, b);
      files[name] = join(dir, `${name}.png`);
      await writeFile(files[name], pictures[name]);
    }
    files.bed = join(dir, 'bed.wav');
    await writeFile(files.bed, await makeAudio(1));
  });
  after(async () => {
    await svc?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const vidgen = (args: string[]) => collectOutput(spawnVidgen(args, env));

  /** The frames of the MP4 and its probe. */
  const open = async (path: string) => {
    const probe = await probeVideo(ffprobe, path);
    return { probe, frames: await decodedFrames(path, probe.width, probe.height) };
  };
  const assertShows = async (frame: Buffer, name: string, size: { width: number; height: number }, floor: number) => {
    const db = psnr(frame, await framed(pictures[name], size.width, size.height));
    assert.ok(db >= floor, `${name}: ${db.toFixed(1)} dB, at least ${floor} wanted`);
  };

  it('family A: uploads each file; first, key and last frames are the pictures, and the bed makes an AAC track', async () => {
    const output = join(dir, 'a.mp4');
    const r = await vidgen([
      'generate',
      ...['-m', 'frames-a', '-p', 'a slow push in', '-d', '2', '-o', output],
      ...['--image', files.first, '--last-frame', files.last, '--keyframe', `1=${files.key}`],
      ...['--reference', files.ref, '--reference-audio', files.bed],
    ]);
    assert.equal(r.code, 0, r.stderr);
    const { probe, frames } = await open(output);
    assert.equal(frames.length, 48);
    await assertShows(frames[0], 'first', probe, 25);
    await assertShows(frames[Math.round((1 / 2) * 47)], 'key', probe, 22);
    await assertShows(frames[47], 'last', probe, 25);
    assert.equal(probe.audio?.codec, 'aac', '--reference-audio asks for sound, and the bed is its soundtrack');
  });

  it('family B: data URIs; --reference goes after the first frame, and the video ends on --last-frame', async () => {
    const output = join(dir, 'b.mp4');
    const r = await vidgen([
      'generate',
      ...['-m', 'frames-b', '-p', 'a slow push in', '-o', output],
      ...['--image', files.first, '--reference', files.ref, '--last-frame', files.last],
    ]);
    assert.equal(r.code, 0, r.stderr);
    const { probe, frames } = await open(output);
    await assertShows(frames[0], 'first', probe, 25);
    await assertShows(frames[frames.length - 1], 'last', probe, 25);
  });

  it('a bad --keyframe is a usage error naming the form, and nothing is sent', async () => {
    const cases: Array<[string, RegExp]> = [
      ['2.5', /--keyframe must be <seconds>=<file\|url>, e\.g\. --keyframe 2\.5=frame\.png; got '2\.5'/],
      [`abc=${files.key}`, /--keyframe must be <seconds>=<file\|url>.*got 'abc=/],
      ['1=', /--keyframe must be <seconds>=<file\|url>.*got '1='/],
      [`0=${files.key}`, /its time must be after 0 and before the video's end \(2 s\)/],
      [`2=${files.key}`, /its time must be after 0 and before the video's end \(2 s\)/],
      [`1=${join(dir, 'missing.png')}`, /missing\.png/],
    ];
    for (const [value, message] of cases) {
      const r = await vidgen(['generate', '-m', 'frames-a', '-p', 'p', '-d', '2', '--keyframe', value]);
      assert.equal(r.code, 1, `${value}: ${r.stderr}`);
      assert.match(r.stderr, message, value);
    }
    const b = await vidgen([
      'generate',
      '-m',
      'frames-b',
      '-p',
      'p',
      '--image',
      files.first,
      '--keyframe',
      `1=${files.key}`,
    ]);
    assert.equal(b.code, 1, b.stderr);
    assert.match(b.stderr, /model 'frames-b' is a family B model, which takes no --keyframe/);
    const tasks = await fetch(`${svc.url}/v1/videos?limit=100`, {
      headers: { authorization: `Bearer ${env.VIDGEN_API_KEY}` },
    });
    const listed = (await tasks.json()) as { data: unknown[] };
    assert.equal(listed.data.length, 1, 'only the family A render above was submitted');
  });

  it('--help names every input flag', async () => {
    const r = await vidgen(['generate', '--help']);
    assert.equal(r.code, 0, r.stderr);
    for (const flag of [
      '--last-frame <url|path>',
      '--keyframe <s>=<url|path>',
      '--reference <url|path>',
      '--reference-audio',
    ])
      assert.ok(r.stdout.includes(flag), flag);
  });
});

function spawnVidgen(args: string[], env: Record<string, string>): ChildProcess {
  return spawnInGroup(process.execPath, [VIDGEN_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
