/**
 * A job's inputs on the host: each image uploaded to the host's input folder as the first frame
 * always was (POST /upload/image, a name unique to the attempt), then named in the workflow by its
 * placeholder: `{{image}}`, `{{last_frame}}`, the slots `{{keyframe_N}}` with their frame index
 * `{{keyframe_N_frame}}`, and `{{reference_image_N}}` (workflow-slots.ts).
 */
import { readFile } from 'node:fs/promises';
import { jobInputs, type GenerationJob } from '../generator.ts';
import type { ComfyUiClient } from './comfyui-client.ts';
import type { RenderPlan } from './render-plan.ts';

export interface PromptInputs {
  image?: string;
  last_frame?: string;
  slots: Record<string, string | number>;
  /** The placeholders these fill: the slots a workflow has that are not here are taken out. */
  present: Set<string>;
}

export async function uploadInputs(
  client: ComfyUiClient,
  job: GenerationJob,
  plan: RenderPlan,
  promptId: string,
  signal: AbortSignal,
): Promise<PromptInputs> {
  const upload = async (path: string, name: string) =>
    client.upload(await readFile(path), `vidgen-${promptId}${name}.png`, signal);
  const out: PromptInputs = { slots: {}, present: new Set() };
  const first = jobInputs(job, 'first_frame')[0];
  if (first) out.image = await upload(first.path, '');
  const last = jobInputs(job, 'last_frame')[0];
  if (last) out.last_frame = await upload(last.path, '-last');
  for (const [i, keyframe] of jobInputs(job, 'keyframe').entries()) {
    out.slots[`keyframe_${i + 1}`] = await upload(keyframe.path, `-keyframe-${i + 1}`);
    out.slots[`keyframe_${i + 1}_frame`] = frameAt(keyframe.atSeconds ?? 0, plan);
  }
  for (const [i, reference] of jobInputs(job, 'reference_image').entries())
    out.slots[`reference_image_${i + 1}`] = await upload(reference.path, `-reference-${i + 1}`);
  for (const key of ['image', 'last_frame'] as const) if (out[key]) out.present.add(key);
  for (const key of Object.keys(out.slots)) out.present.add(key);
  return out;
}

/** The rendered frame shown at `seconds`: within the frames the model makes at its own rate. */
function frameAt(seconds: number, plan: RenderPlan): number {
  return Math.max(0, Math.min(plan.renderFrames - 1, Math.round(seconds * plan.renderFps)));
}
