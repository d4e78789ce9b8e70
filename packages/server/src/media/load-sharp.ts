import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

/**
 * sharp, loaded at the first image it is asked to read. It maps libvips and its codecs (about
 * 10 MB resident), which an idle server, an API-only process or one that only serves text-to-video
 * downloads never needs (bench/idle-rss.bench.ts). Loaded once and shared.
 */
export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}
