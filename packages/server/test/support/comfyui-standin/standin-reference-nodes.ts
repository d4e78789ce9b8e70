/**
 * The nodes of the multi-input presets, with their real inputs and what running them does here:
 * - comfy_extras/nodes_wan.py (comfyanonymous/ComfyUI): WanFirstLastFrameToVideo (`start_image`,
 *   `end_image`, both optional IMAGE; width/height 16..MAX_RESOLUTION, length 1..MAX_RESOLUTION,
 *   batch_size 1..4096) and WanPhantomSubjectToVideo (`images`, an optional IMAGE batch that its
 *   `encode` nevertheless takes without a default: left out, the node raises TypeError when it runs);
 *   four outputs (positive, negative_text, negative_img_text, latent).
 * - comfy_extras/nodes_lt.py: EmptyLTXVLatentVideo (width/height 64..MAX_RESOLUTION), LTXVConditioning
 *   (frame_rate 0..1000), LTXVAddGuide (`image`, `frame_idx` -9999..9999, `strength` 0..1, optional
 *   `iclora_parameters`), LTXVCropGuides.
 * - nodes.py: CheckpointLoaderSimple (MODEL, CLIP, VAE) and ImageBatch (`image1`, `image2`).
 * The executor records what reached each node, so tests see each input arrive in the node's own input.
 */
import type { InputSpec, ModelFiles, NodeDef } from './standin-nodes.ts';

const MAX_RES = 16384;
const INT = (min: number, max: number): InputSpec => ({ type: 'INT', min, max });
const FLOAT = (min: number, max: number): InputSpec => ({ type: 'FLOAT', min, max });
const LINK = (type: string, optional = false): InputSpec => ({ type, optional });
const CONDITIONING_PAIR = ['CONDITIONING', 'CONDITIONING'];

export function referenceNodeDefs(models: ModelFiles): Record<string, NodeDef> {
  const wanLatent = {
    positive: LINK('CONDITIONING'),
    negative: LINK('CONDITIONING'),
    vae: LINK('VAE'),
    width: INT(16, MAX_RES),
    height: INT(16, MAX_RES),
    length: INT(1, MAX_RES),
    batch_size: INT(1, 4096),
  };
  return {
    CheckpointLoaderSimple: {
      inputs: { ckpt_name: { type: 'COMBO', options: models.checkpoints } },
      outputs: ['MODEL', 'CLIP', 'VAE'],
    },
    ImageBatch: { inputs: { image1: LINK('IMAGE'), image2: LINK('IMAGE') }, outputs: ['IMAGE'] },
    WanFirstLastFrameToVideo: {
      inputs: {
        ...wanLatent,
        clip_vision_start_image: LINK('CLIP_VISION_OUTPUT', true),
        clip_vision_end_image: LINK('CLIP_VISION_OUTPUT', true),
        start_image: LINK('IMAGE', true),
        end_image: LINK('IMAGE', true),
      },
      outputs: [...CONDITIONING_PAIR, 'LATENT'],
    },
    WanPhantomSubjectToVideo: {
      inputs: { ...wanLatent, images: LINK('IMAGE', true) },
      outputs: [...CONDITIONING_PAIR, 'CONDITIONING', 'LATENT'],
    },
    EmptyLTXVLatentVideo: {
      inputs: { width: INT(64, MAX_RES), height: INT(64, MAX_RES), length: INT(1, MAX_RES), batch_size: INT(1, 4096) },
      outputs: ['LATENT'],
    },
    LTXVConditioning: {
      inputs: { positive: LINK('CONDITIONING'), negative: LINK('CONDITIONING'), frame_rate: FLOAT(0, 1000) },
      outputs: CONDITIONING_PAIR,
    },
    LTXVAddGuide: {
      inputs: {
        positive: LINK('CONDITIONING'),
        negative: LINK('CONDITIONING'),
        vae: LINK('VAE'),
        latent: LINK('LATENT'),
        image: LINK('IMAGE'),
        frame_idx: INT(-9999, 9999),
        strength: FLOAT(0, 1),
        iclora_parameters: LINK('IC_LORA_PARAMETERS', true),
      },
      outputs: [...CONDITIONING_PAIR, 'LATENT'],
    },
    LTXVCropGuides: {
      inputs: { positive: LINK('CONDITIONING'), negative: LINK('CONDITIONING'), latent: LINK('LATENT') },
      outputs: [...CONDITIONING_PAIR, 'LATENT'],
    },
  };
}

type Value = Record<string, unknown>;
/** An image as the executor passes it: the uploaded file it came from (a batch: several). */
type Image = { path: string; batch?: string[] };

export interface Latent {
  width: number;
  height: number;
  frames: number;
  /** The picture the stand-in's "diffusion" shows: the first frame where one was given. */
  image?: string;
  /** LTX guides as they were added, each with the frame it was asked at. */
  guides?: Array<{ path: string; frame: number }>;
}

/** Runs one of these nodes; undefined for a node this file does not define. */
export function runReferenceNode(type: string, i: Value, fail: (type: string, message: string) => never) {
  // Wan's VAE: 8x spatially, 4n+1 frames; LTX's: 32x spatially, 8n+1 frames (nodes_lt.py EmptyLTXVLatentVideo).
  const latent = (multiple: number, step: number, image?: unknown): Latent => ({
    width: Math.floor(Number(i.width) / multiple) * multiple,
    height: Math.floor(Number(i.height) / multiple) * multiple,
    frames: Math.floor((Number(i.length) - 1) / step) * step + 1,
    image: (image as Image | undefined)?.path,
  });
  const cond = [i.positive as Value, i.negative as Value];
  switch (type) {
    case 'CheckpointLoaderSimple':
      return [{ model: i.ckpt_name }, { clip: i.ckpt_name }, { vae: i.ckpt_name }];
    case 'ImageBatch': {
      const [a, b] = [i.image1 as Image, i.image2 as Image];
      return [{ path: a.path, batch: [...(a.batch ?? [a.path]), ...(b.batch ?? [b.path])] }];
    }
    case 'WanFirstLastFrameToVideo':
      return [...cond, latent(8, 4, i.start_image ?? i.end_image)];
    case 'WanPhantomSubjectToVideo':
      if (i.images === undefined)
        fail('TypeError', "WanPhantomSubjectToVideo.encode() missing 1 required positional argument: 'images'");
      return [...cond, i.negative as Value, latent(8, 4, i.images)];
    case 'EmptyLTXVLatentVideo':
      return [latent(32, 8)];
    case 'LTXVConditioning':
      return cond;
    case 'LTXVAddGuide': {
      const before = i.latent as Latent;
      const path = (i.image as Image).path;
      const frame = Number(i.frame_idx);
      const guides = [...(before.guides ?? []), { path, frame }];
      return [...cond, { ...before, guides, image: before.image ?? (frame === 0 ? path : undefined) }];
    }
    case 'LTXVCropGuides':
      return [...cond, i.latent as Value];
    default:
      return undefined;
  }
}
