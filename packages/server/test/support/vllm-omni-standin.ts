/**
 * A stand-in for vLLM-Omni's Videos API, from vllm-project/vllm-omni `docs/serving/videos_api.md`,
 * `vllm_omni/entrypoints/openai/api_server.py` (create_video, retrieve_video, delete_video,
 * download_video) and `vllm_omni/entrypoints/openai/protocol/videos.py` (VideoResponse, SecondStr,
 * SizeStr): Form fields only, `video_gen_<hex>` ids, DELETE aborts, `/v1/videos/sync` answers bytes.
 * Files: `input_reference` (an image), and the reference `video_reference` and `audio_reference`,
 * each an UploadFile part (a text value is FastAPI's 422).
 */
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { LoopbackStandin, sendFile } from './standin-media.ts';
import { readForm, send, VideoStandin, type VideoJob, type VideoStandinOptions } from './openai-video-standin.ts';

export class VllmOmniStandin extends VideoStandin {
  /** Calls of `/v1/videos/sync` (the relay never makes one). */
  syncCalls = 0;

  static start(o: VideoStandinOptions = {}): Promise<VllmOmniStandin> {
    return LoopbackStandin.open((server, url, media) => new VllmOmniStandin(server, url, media, o));
  }

  protected unauthorized(): unknown {
    return { error: 'Unauthorized' };
  }

  /** FastAPI Form fields: the same validation for the async create and for `/sync`. */
  private async readForm(req: http.IncomingMessage): Promise<Record<string, any> | { detail: unknown }> {
    const form = await readForm(req);
    if (!form) return { detail: [{ type: 'missing', loc: ['body', 'prompt'], msg: 'Field required', input: null }] };
    if (typeof form.prompt !== 'string')
      return { detail: [{ type: 'missing', loc: ['body', 'prompt'], msg: 'Field required', input: null }] };
    if (form.seconds !== undefined && !/^[1-9]\d*$/.test(form.seconds))
      return {
        detail: [
          {
            type: 'string_pattern_mismatch',
            loc: ['body', 'seconds'],
            msg: "String should match pattern '^[1-9]\\d*$'",
          },
        ],
      };
    if (form.size !== undefined && !/^\d+x\d+$/.test(form.size))
      return {
        detail: [
          { type: 'string_pattern_mismatch', loc: ['body', 'size'], msg: "String should match pattern '^\\d+x\\d+$'" },
        ],
      };
    // `input_reference`, `video_reference` and `audio_reference` are UploadFile parameters: FastAPI
    // refuses a plain text value there, and a file of the wrong kind the server cannot decode.
    for (const [name, kind] of [
      ['input_reference', 'image/'],
      ['video_reference', 'video/'],
      ['audio_reference', 'audio/'],
    ] as const) {
      const v = form[name];
      if (v === undefined) continue;
      if (typeof v === 'string')
        return {
          detail: [{ type: 'value_error', loc: ['body', name], msg: `Expected UploadFile, received: <class 'str'>` }],
        };
      if (!String(v.type).startsWith(kind)) return { detail: `${name} must be a ${kind.slice(0, -1)} file.` };
    }
    for (const name of ['extra_params', 'lora', 'image_reference'])
      if (typeof form[name] === 'string') {
        try {
          form[name] = JSON.parse(form[name]);
        } catch {
          return { detail: 'Invalid JSON in form field.' };
        }
      }
    return form;
  }

  protected async create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const form = await this.readForm(req);
    if ('detail' in form) return send(res, typeof form.detail === 'string' ? 400 : 422, form);
    // num_frames = seconds × fps: the clip lasts `seconds` at whatever fps was asked.
    const id = `video_gen_${randomBytes(16).toString('hex')}`;
    const job = this.start(form, 'multipart', id, form.size ?? '1280x720', Number(form.seconds ?? 4));
    send(res, 200, this.video(job));
  }

  protected async sync(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.syncCalls++;
    const form = await this.readForm(req);
    if ('detail' in form) return send(res, 422, form);
    const [w, h] = String(form.size ?? '1280x720')
      .split('x')
      .map(Number);
    await sendFile(req, res, await this.media.render(w, h, Number(form.seconds ?? 4)));
  }

  protected async remove(res: http.ServerResponse, job: VideoJob): Promise<void> {
    // Queued or running: a bounded engine abort (VLLM_OMNI_ABORT_TIMEOUT), then the record is popped.
    if (this.status(job) !== 'completed' && this.status(job) !== 'failed') job.aborted = true;
    job.deleted = true;
    send(res, 200, { id: job.id, object: 'video.deleted', deleted: true });
  }

  protected video(job: VideoJob): Record<string, any> {
    const status = this.status(job);
    return {
      id: job.id,
      object: 'video',
      model: job.fields.model ?? 'Wan-AI/Wan2.2-T2V-A14B-Diffusers',
      prompt: job.fields.prompt,
      status,
      size: `${job.width}x${job.height}`,
      progress: status === 'completed' ? 100 : 0,
      seconds: String(job.seconds),
      quality: 'default',
      completed_at: status === 'completed' || status === 'failed' ? Math.floor(Date.now() / 1000) : null,
      created_at: Math.floor(Date.now() / 1000),
      remixed_from_video_id: null,
      error: status === 'failed' ? job.failure : null,
      media_type: 'video/mp4',
      expires_at: null,
      file_name: status === 'completed' ? `${job.id}.mp4` : null,
      inference_time_s: status === 'completed' ? job.seconds * 1.7 : null,
      stage_durations: {},
      peak_memory_mb: 0,
    };
  }
}
