import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runFfmpeg } from '../../src/generators/ffmpeg/run-ffmpeg.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';

const { ffmpeg } = resolveFfmpegBinaries({});

describe('runFfmpeg stdin', () => {
  let dir: string | undefined;
  after(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

  it('has written every item but the last before it asks for another, so a source may reuse a buffer two items on', async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-run-ffmpeg-'));
    const out = join(dir, 'frames.gray');
    // Frames larger than a pipe's buffer (64 KiB), so writes really wait for ffmpeg to read.
    const side = 512;
    const count = 60;
    const buffers = [Buffer.alloc(side * side), Buffer.alloc(side * side)];
    function* frames(): Iterable<Buffer> {
      for (let k = 0; k < count; k++) yield buffers[k % 2].fill(k);
    }
    await runFfmpeg(ffmpeg, {
      args: [
        '-v',
        'error',
        '-f',
        'rawvideo',
        '-pix_fmt',
        'gray',
        '-video_size',
        `${side}x${side}`,
        '-framerate',
        '24',
        '-i',
        'pipe:0',
        '-f',
        'rawvideo',
        '-y',
        out,
      ],
      stdin: frames(),
      signal: new AbortController().signal,
    });
    const written = await readFile(out);
    assert.equal(written.length, count * side * side);
    for (let k = 0; k < count; k++) {
      const frame = written.subarray(k * side * side, (k + 1) * side * side);
      assert.ok(
        frame.every((b) => b === k),
        `frame ${k} was overwritten before ffmpeg read it`,
      );
    }
  });
});
