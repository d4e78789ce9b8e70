/**
 * What a real SaveVideo does with a CreateVideo's audio, read from ComfyUI's source
 * (comfy_api/latest/_input_impl/video_types.py, VideoFromComponents.save_to, at commit 04dfab9e):
 *
 *   frame_rate = Fraction(round(self.__components.frame_rate * 1000), 1000)
 *   audio_sample_rate = 48000 if output_format == VideoContainer.WEBM else source_audio_sample_rate
 *   waveform = waveform[0, :, :math.ceil((source_audio_sample_rate / frame_rate) * images.shape[0])]
 *
 * So in an MP4 the sound is cut to `ceil(rate / fps × frames)` samples, keeps the input's sample
 * rate (no resampler unless the rates differ, which they only do for WebM) and is never padded: a
 * sound shorter than the picture stays short. It is encoded as AAC with the waveform's channels.
 */
import { spawn } from 'node:child_process';

/** ffmpeg arguments muxing `audio` (input 1) into the saved MP4 as a real SaveVideo would. */
export async function saveVideoAudioArgs(ffmpeg: string, audio: string, fps: number, frames: number) {
  const rate = await sampleRateOf(ffmpeg, audio);
  const samples = Math.ceil((rate * frames * 1000) / Math.round(fps * 1000));
  return ['-i', audio, '-map', '0:v', '-map', '1:a', '-af', `atrim=end_sample=${samples}`, '-c:a', 'aac'];
}

/** The first audio stream's sample rate, as ffmpeg describes the file (LoadAudio keeps it). */
function sampleRateOf(ffmpeg: string, file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, ['-hide_banner', '-i', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    let text = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.on('error', reject);
    child.on('close', () => {
      const rate = Number(/Audio: .*?(\d+) Hz/.exec(text)?.[1]);
      if (rate > 0) resolve(rate);
      else reject(new Error(`no audio stream in ${file}`));
    });
  });
}
