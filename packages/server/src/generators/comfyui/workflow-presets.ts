/**
 * Workflows shipped with vidgen, with the render constraints of their model. An operator names a
 * preset in the ComfyUI config, or points at their own API-format files (see docs/comfyui.md).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ComfyUiWorkflows } from './render-plan.ts';
import { parseWorkflow, type WorkflowGraph } from './workflow-template.ts';

/** The workflows of a model, each an API-format graph. */
const WORKFLOW_KEYS = [
  'textToVideo',
  'imageToVideo',
  'firstLastToVideo',
  'keyframesToVideo',
  'referencesToVideo',
] as const;
type WorkflowKey = (typeof WORKFLOW_KEYS)[number];

/** A preset names its workflows by file (in ./workflows) and states its model's render constraints. */
type Preset = Omit<ComfyUiWorkflows, WorkflowKey> & Partial<Record<WorkflowKey, string>>;

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
  // Wan 2.1 FLF2V 14B (720p): WanFirstLastFrameToVideo (comfy_extras/nodes_wan.py) takes `start_image`
  // and `end_image`, both optional, so one graph serves a first frame, a last frame, or both. The
  // Wan 2.1 VAE compresses 8x spatially (sides in multiples of 16) and 4x in time (4n+1 frames);
  // the model was trained at 16 fps.
  'wan2.1-flf2v-14b': {
    firstLastToVideo: 'wan21-flf2v-14b-flf.json',
    sizeMultiple: 16,
    lengthStep: 4,
    renderFps: 16,
    maxRenderPixels: 1280 * 720,
    negativePrompt: WAN_NEGATIVE,
    sound: false,
  },
  // LTX-Video 2B distilled: each image is an LTXVAddGuide (comfy_extras/nodes_lt.py; `image`,
  // `frame_idx`) on the latent of EmptyLTXVLatentVideo: the first frame at frame 0, up to four
  // keyframes at their frames, the last frame at -1 (counted from the end), then LTXVCropGuides
  // takes the guide frames off the latent before decoding. Its VAE compresses 32x spatially and
  // 8x in time (8n+1 frames); 24 fps.
  'ltxv-2b-keyframes': {
    keyframesToVideo: 'ltxv-2b-keyframes.json',
    sizeMultiple: 32,
    lengthStep: 8,
    renderFps: 24,
    maxRenderPixels: 1216 * 704,
    negativePrompt: 'worst quality, inconsistent motion, blurry, jittery, distorted',
    sound: false,
  },
  // Wan 2.1 Phantom 14B: subject references as WanPhantomSubjectToVideo's `images` batch
  // (comfy_extras/nodes_wan.py), up to four images joined by ImageBatch (nodes.py); no first frame.
  'wan2.1-phantom-14b': {
    referencesToVideo: 'wan21-phantom-14b-refs.json',
    sizeMultiple: 16,
    lengthStep: 4,
    renderFps: 16,
    maxRenderPixels: 832 * 480,
    negativePrompt: WAN_NEGATIVE,
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
  const workflows: ComfyUiWorkflows = { ...preset } as ComfyUiWorkflows;
  for (const key of WORKFLOW_KEYS) {
    const file = preset[key];
    workflows[key] = file ? await builtIn(file) : undefined;
  }
  return workflows;
}
