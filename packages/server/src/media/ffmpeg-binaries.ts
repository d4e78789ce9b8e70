/**
 * Where the ffmpeg and ffprobe executables are. The npm installer packages ship a static build for
 * the platform, so `npm install` alone yields a working renderer; operators can point at their own
 * build instead. Overrides come from the composition root (env), never from here.
 */
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffprobeInstaller from '@ffprobe-installer/ffprobe';

export interface FfmpegBinaries {
  ffmpeg: string;
  ffprobe: string;
}

export function resolveFfmpegBinaries(overrides: { ffmpeg?: string; ffprobe?: string } = {}): FfmpegBinaries {
  return {
    ffmpeg: nonEmpty(overrides.ffmpeg) ?? ffmpegInstaller.path,
    ffprobe: nonEmpty(overrides.ffprobe) ?? ffprobeInstaller.path,
  };
}

// An empty env var (VIDGEN_FFMPEG_PATH=) means "not set", not "run the empty path".
function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() !== '' ? value : undefined;
}
