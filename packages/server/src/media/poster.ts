/**
 * Still images of a finished video, for lists and scrubbing: a poster (one frame, WebP) and a
 * sprite sheet (ten frames spread over the video, 5×2 tiles of 160 px wide, JPEG). Both are taken
 * from the verified MP4 itself, so they show what the video shows.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export const SPRITE_SHEET = { columns: 5, rows: 2, tileWidth: 160 };

export interface StillImage {
  variant: 'thumbnail' | 'spritesheet';
  path: string;
}

/** The poster and the sprite sheet of `video`, written into `dir`. */
export async function makeStills(
  ffmpeg: string,
  video: string,
  durationSeconds: number,
  dir: string,
  signal?: AbortSignal,
): Promise<StillImage[]> {
  const seconds = Math.max(durationSeconds, 0.04);
  const poster = join(dir, 'thumbnail.webp');
  // A third in: past a fade-in or a first frame that is the plain input image, well before the end.
  await run(
    ffmpeg,
    [
      '-ss',
      (seconds / 3).toFixed(3),
      '-i',
      video,
      '-frames:v',
      '1',
      '-vf',
      "scale='min(640,iw)':-2",
      '-c:v',
      'libwebp',
      '-quality',
      '80',
      poster,
    ],
    signal,
  );
  const sprite = join(dir, 'spritesheet.jpg');
  const { columns, rows, tileWidth } = SPRITE_SHEET;
  const rate = ((columns * rows) / seconds).toFixed(4);
  await run(
    ffmpeg,
    [
      '-i',
      video,
      '-vf',
      `fps=${rate},scale=${tileWidth}:-2,tile=${columns}x${rows}`,
      '-frames:v',
      '1',
      '-q:v',
      '4',
      sprite,
    ],
    signal,
  );
  return [
    { variant: 'thumbnail', path: poster },
    { variant: 'spritesheet', path: sprite },
  ];
}

function run(ffmpeg: string, args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(ffmpeg, ['-v', 'error', '-nostdin', '-y', ...args], { signal, maxBuffer: 1 << 20 }, (err) =>
      err ? reject(err) : resolve(),
    );
  });
}
