/**
 * What to ask the model for. A video model renders at its own granularity (Wan 2.2 5B: sides in
 * multiples of 32 and 4n+1 frames; LTX-Video: multiples of 32 and 8n+1), so the plan asks for the
 * nearest size and the next frame count it can make; output-video.ts then fits the result exactly.
 */
import { FAILURES } from '../../domain/task-failure.ts';
import type { GenerationJob } from '../generator.ts';
import type { WorkflowGraph } from './workflow-template.ts';
import type { ComfyUiWorkflows } from './comfyui-workflows.ts';
import { pickWorkflow } from './workflow-choice.ts';
import { frameCountOf } from '../job-geometry.ts';

export type { ComfyUiWorkflows } from './comfyui-workflows.ts';

export interface RenderPlan {
  workflow: WorkflowGraph;
  /** Frames of the finished video. */
  frames: number;
  renderWidth: number;
  renderHeight: number;
  renderFrames: number;
  renderFps: number;
}

export function planRender(job: GenerationJob, w: ComfyUiWorkflows): RenderPlan {
  const bad = (message: string) => FAILURES.invalidInput(message);
  if (job.kind !== 'generate') throw bad(`This model cannot ${job.kind} videos.`);
  const frames = frameCountOf(job);
  if (job.audio && !w.sound) throw bad('This model makes silent videos only.');
  const workflow = pickWorkflow(job, w);

  const multiple = w.sizeMultiple ?? 16;
  const pixels = job.width * job.height;
  const scale = w.maxRenderPixels && pixels > w.maxRenderPixels ? Math.sqrt(w.maxRenderPixels / pixels) : 1;
  const side = (v: number) => Math.max(multiple, Math.round((v * scale) / multiple) * multiple);
  const renderFps = w.renderFps ?? job.fps;
  const step = w.lengthStep ?? 1;
  const wanted = Math.max(1, Math.ceil(job.duration * renderFps - 1e-9));
  const renderFrames = step > 1 ? 1 + Math.ceil((wanted - 1) / step) * step : wanted;
  return { workflow, frames, renderWidth: side(job.width), renderHeight: side(job.height), renderFrames, renderFps };
}

/** Start-up checks of a workflow set; errors name the problem for the operator. */
export function checkWorkflows(w: ComfyUiWorkflows, uses: (g: WorkflowGraph) => Set<string>): void {
  if (!w.textToVideo && !w.imageToVideo && !w.firstLastToVideo && !w.keyframesToVideo && !w.referencesToVideo)
    throw new Error('ComfyUI: a model needs at least one workflow');
  if (w.imageToVideo && !uses(w.imageToVideo).has('image'))
    throw new Error('ComfyUI: the image-to-video workflow must use {{image}}');
  if (w.textToVideo && uses(w.textToVideo).has('image'))
    throw new Error('ComfyUI: the text-to-video workflow must not use {{image}}');
  for (const [name, graph, needs] of [
    ['firstLastToVideo', w.firstLastToVideo, 'last_frame'],
    ['keyframesToVideo', w.keyframesToVideo, 'keyframe_1'],
    ['referencesToVideo', w.referencesToVideo, 'reference_image_1'],
  ] as const)
    if (graph && !uses(graph).has(needs)) throw new Error(`ComfyUI: the ${name} workflow must use {{${needs}}}`);
  for (const [name, v] of [
    ['sizeMultiple', w.sizeMultiple],
    ['lengthStep', w.lengthStep],
  ] as const) {
    if (v !== undefined && (!Number.isInteger(v) || v < 1))
      throw new Error(`ComfyUI: ${name} must be a whole number >= 1`);
  }
  if (w.renderFps !== undefined && !(w.renderFps > 0 && w.renderFps <= 120))
    throw new Error('ComfyUI: renderFps must be in (0, 120]');
  if (w.maxRenderPixels !== undefined && !(w.maxRenderPixels >= 256))
    throw new Error('ComfyUI: maxRenderPixels is too small');
}
