/**
 * A stand-in for SGLang Diffusion's Videos API, from sgl-project/sglang
 * `python/sglang/multimodal_gen/runtime/entrypoints/openai/video_api.py`: JSON or multipart (with a
 * required `input_reference` file), uuid ids, a DELETE that only forgets the job, `{detail}` errors.
 */
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import { LoopbackStandin } from './standin-media.ts';
import { readForm, send, VideoStandin, type VideoJob, type VideoStandinOptions } from './openai-video-standin.ts';

export class SglangStandin extends VideoStandin {
  static start(o: VideoStandinOptions = {}): Promise<SglangStandin> {
    return LoopbackStandin.open((server, url, media) => new SglangStandin(server, url, media, o));
  }

  protected unauthorized(): unknown {
    return { error: 'Unauthorized' };
  }

  protected async create(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const multipart = String(req.headers['content-type'] ?? '')
      .toLowerCase()
      .includes('multipart/form-data');
    let fields: Record<string, any>;
    if (multipart) {
      fields = (await readForm(req)) ?? {};
      if (!fields.prompt) return send(res, 400, { detail: 'prompt is required' });
      if (!fields.input_reference?.file) return send(res, 400, { detail: 'input_reference file is required' });
    } else {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      try {
        fields = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        fields = {};
      }
      if (fields.extra_body && typeof fields.extra_body === 'object') Object.assign(fields, fields.extra_body);
      if (typeof fields.prompt !== 'string')
        return send(res, 400, {
          detail: 'Invalid request body: 1 validation error for VideoGenerationsRequest\nprompt\n  Field required',
        });
    }
    const job = this.start(
      fields,
      multipart ? 'multipart' : 'json',
      randomUUID(),
      fields.size ?? '720x1280',
      Number(fields.seconds ?? 4),
    );
    send(res, 200, this.video(job));
  }

  protected async remove(res: http.ServerResponse, job: VideoJob): Promise<void> {
    // Only the record goes; the scheduler keeps rendering (no abort in its video_api.py).
    job.deleted = true;
    send(res, 200, { ...this.video(job), status: 'deleted' });
  }

  protected video(job: VideoJob): Record<string, any> {
    const status = this.status(job);
    return {
      id: job.id,
      object: 'video',
      model: job.fields.model ?? 'sora-2',
      status,
      progress: status === 'completed' ? 100 : 0,
      created_at: Math.floor(Date.now() / 1000),
      size: `${job.width}x${job.height}`,
      seconds: String(job.seconds),
      quality: 'standard',
      ...(status === 'completed' ? { completed_at: Math.floor(Date.now() / 1000) } : {}),
      ...(status === 'failed' ? { error: { message: job.failure!.message } } : {}),
    };
  }
}
