/**
 * The ffmpeg arguments every output of the built-in renderer shares, so generations, edits and
 * extensions are the same kind of file: H.264 yuv420p tagged BT.709 limited range, stereo AAC at
 * 48 kHz when the task asked for sound (else no audio stream), no metadata, the index up front for
 * streaming (faststart).
 */
import type { Size } from './frame-resampler.ts';

export interface EncoderSettings {
  preset: string;
  /** 0 lets x264 choose from the core count. */
  threads: number;
}

/** Errors only, and machine-readable progress on stdout (see run-ffmpeg.ts). */
export const QUIET = ['-hide_banner', '-loglevel', 'error', '-nostats', '-progress', 'pipe:1'];

/** Raw yuv420p frames on stdin at `frameRate` (a number or a fraction such as "30000/1001"). */
export function rawFramesInput(size: Size, frameRate: string): string[] {
  return [
    '-f',
    'rawvideo',
    '-pixel_format',
    'yuv420p',
    '-video_size',
    `${size.width}x${size.height}`,
    '-framerate',
    frameRate,
    '-i',
    'pipe:0',
  ];
}

/**
 * AAC-LC stereo at 48 kHz, 128 kbit/s: transparent for ambience and a music bed. ffmpeg's own
 * encoder with its fast coder: its default (two-loop) costs twice the CPU for no audible gain here.
 */
export const AAC_OUTPUT = ['-c:a', 'aac', '-aac_coder', 'fast', '-b:a', '128k', '-ar', '48000', '-ac', '2'];

/** `audio`: the output carries the mapped audio stream as AAC; otherwise it has none. */
export function x264Output(enc: EncoderSettings, outPath: string, audio = false): string[] {
  return [
    ...(audio ? AAC_OUTPUT : ['-an']),
    '-sn',
    '-dn',
    '-c:v',
    'libx264',
    '-preset',
    enc.preset,
    '-threads',
    String(enc.threads),
    '-pix_fmt',
    'yuv420p',
    '-colorspace',
    'bt709',
    '-color_primaries',
    'bt709',
    '-color_trc',
    'bt709',
    '-color_range',
    'tv',
    '-map_metadata',
    '-1',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    '-y',
    outPath,
  ];
}

/**
 * An input video's pictures as BT.709 limited-range yuv420p, what every output is tagged as.
 * Untagged inputs are read as BT.601 (ffmpeg's default, and what most untagged SD and phone video
 * is); leaving their numbers as they are under a BT.709 tag visibly shifts the colours.
 */
export const TO_BT709 = [
  'scale=in_color_matrix=auto:in_range=auto:out_color_matrix=bt709:out_range=tv',
  'format=yuv420p',
];

/** Packed yuv420p bytes of one frame. */
export const frameBytes = (size: Size) => (size.width * size.height * 3) / 2;
