/** A ComfyUI model's workflows and its model's render constraints (docs/comfyui.md). */
import type { WorkflowGraph } from './workflow-template.ts';

export interface ComfyUiWorkflows {
  /** API-format graph for jobs without an image. */
  textToVideo?: WorkflowGraph;
  /** API-format graph for jobs that start from a first frame; it must use {{image}}. */
  imageToVideo?: WorkflowGraph;
  /** For jobs with a last frame: it must use {{last_frame}}, and may use {{image}} (workflow-choice.ts). */
  firstLastToVideo?: WorkflowGraph;
  /** For jobs with keyframes: one slot per keyframe it takes, `{{keyframe_N}}` and `{{keyframe_N_frame}}`. */
  keyframesToVideo?: WorkflowGraph;
  /** For jobs with reference images: one slot per image it takes, `{{reference_image_N}}`. */
  referencesToVideo?: WorkflowGraph;
  /** The model renders sides in multiples of this; 16 by default. */
  sizeMultiple?: number;
  /** The model renders 1 + k × lengthStep frames; 1 (any count) by default. */
  lengthStep?: number;
  /** The frame rate the model renders at; the output is resampled to the job's. Defaults to the job's. */
  renderFps?: number;
  /** Renders at most this many pixels per frame and scales up afterwards (bounds VRAM for 1080p asks). */
  maxRenderPixels?: number;
  /** Fills {{negative_prompt}}. */
  negativePrompt?: string;
  /**
   * The workflows' output video has a sound track (LTX-2's joint audio, a workflow that muxes one):
   * it is kept when the task asks for sound. Without it a task that asks for sound is refused.
   */
  sound?: boolean;
}
