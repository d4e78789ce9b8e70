/**
 * Workflows shipped with vidgen, with the render constraints of their model. An operator names a
 * preset in the ComfyUI config, or points at their own API-format files (see docs/comfyui.md).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ComfyUiWorkflows } from './render-plan.ts';
import { parseWorkflow, type WorkflowGraph } from './workflow-template.ts';

interface Preset extends Omit<ComfyUiWorkflows, 'textToVideo' | 'imageToVideo'> {
  textToVideo?: string;
  imageToVideo?: string;
}

/** Wan's own negative prompt from its reference workflows: it suppresses static, washed-out frames. */
const WAN_NEGATIVE =
  '色调艳丽，过曝，静态，细节模糊不清，字幕，风格，作品，画作，画面，静止，整体发灰，最差质量，低质量，JPEG压缩残留，' +
  '丑陋的，残缺的，多余的手指，画得不好的手部，画得不好的脸部，畸形的，毁容的，形态畸形的肢体，手指融合，' +
  '静止不动的画面，杂乱的背景，三条腿，背景人很多，倒着走';

export const WORKFLOW_PRESETS: Record<string, Preset> = {
  // Wan 2.2 TI2V 5B: one model for both; its VAE compresses 16x spatially with 2x2 patches (sides
  // in multiples of 32) and 4x in time (4n+1 frames), at 24 fps. Fits a 24 GB GPU at 1280x704.
  'wan2.2-ti2v-5b': {
    textToVideo: 'wan22-ti2v-5b-t2v.json',
    imageToVideo: 'wan22-ti2v-5b-i2v.json',
    sizeMultiple: 32,
    lengthStep: 4,
    renderFps: 24,
    maxRenderPixels: 1280 * 704,
    negativePrompt: WAN_NEGATIVE,
    // Wan 2.2 makes pictures only: its SaveVideo writes no audio stream.
    sound: false,
  },
};

/** Reads and checks one API-format workflow file. */
export async function loadWorkflowFile(path: string): Promise<WorkflowGraph> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new Error(`ComfyUI workflow ${path}: ${(err as Error).message}`);
  }
  return parseWorkflow(raw, path);
}

export async function loadPreset(name: string): Promise<ComfyUiWorkflows> {
  const preset = WORKFLOW_PRESETS[name];
  if (!preset)
    throw new Error(`ComfyUI: unknown preset "${name}" (known: ${Object.keys(WORKFLOW_PRESETS).join(', ')})`);
  const builtIn = (file: string) => loadWorkflowFile(fileURLToPath(new URL(`./workflows/${file}`, import.meta.url)));
  return {
    ...preset,
    textToVideo: preset.textToVideo ? await builtIn(preset.textToVideo) : undefined,
    imageToVideo: preset.imageToVideo ? await builtIn(preset.imageToVideo) : undefined,
  };
}
