/**
 * The node classes the stand-in knows (a slice of ComfyUI core plus VideoHelperSuite's
 * VHS_VideoCombine) and prompt validation as ComfyUI's execution.validate_prompt does it: the same
 * checks, the same error types and shapes, the same split into a 400 and a 200 with node_errors.
 */
import { referenceNodeDefs } from './standin-reference-nodes.ts';

export interface InputSpec {
  type: string;
  optional?: boolean;
  min?: number;
  max?: number;
  /** COMBO choices. */
  options?: string[];
  /** Like a node's VALIDATE_INPUTS: true, or the reason. */
  validate?: (value: unknown) => true | string;
}

export interface NodeDef {
  inputs: Record<string, InputSpec>;
  outputs: string[];
  outputNode?: boolean;
}

export interface ModelFiles {
  diffusion_models: string[];
  /** Whole checkpoints (CheckpointLoaderSimple): LTX-Video's. */
  checkpoints: string[];
  text_encoders: string[];
  vae: string[];
}

export type Prompt = Record<string, { class_type?: unknown; inputs?: Record<string, unknown> }>;

export interface ValidationError {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}

const INT = (min: number, max: number, optional = false): InputSpec => ({ type: 'INT', min, max, optional });
const FLOAT = (min: number, max: number): InputSpec => ({ type: 'FLOAT', min, max });
const COMBO = (options: string[]): InputSpec => ({ type: 'COMBO', options });
const LINK = (type: string, optional = false): InputSpec => ({ type, optional });
const STRING: InputSpec = { type: 'STRING' };
const SAMPLERS = [
  'euler',
  'euler_ancestral',
  'heun',
  'dpmpp_2m',
  'dpmpp_2m_sde',
  'dpmpp_3m_sde',
  'uni_pc',
  'uni_pc_bh2',
  'lcm',
  'res_multistep',
];
const SCHEDULERS = [
  'simple',
  'sgm_uniform',
  'karras',
  'exponential',
  'ddim_uniform',
  'beta',
  'normal',
  'linear_quadratic',
  'kl_optimal',
];
const MAX_RES = 16384;
/** What SaveVideo can write (comfy_api VideoCodec). */
export const SAVE_VIDEO_CODECS = ['auto', 'h264'];

/**
 * `runtimeCodecCheck`: as the 0.3.5x–0.3.6x builds behaved (seen on a real 0.3.64):
 * SaveVideo's `codec` passed POST /prompt whatever it was, and the node raised ValueError when it
 * ran. Newer builds refuse it at validation (value_not_in_list).
 */
export function nodeDefs(
  models: ModelFiles,
  inputExists: (name: string) => boolean,
  runtimeCodecCheck = false,
): Record<string, NodeDef> {
  const latent = (min: number): Record<string, InputSpec> => ({
    width: INT(min, MAX_RES),
    height: INT(min, MAX_RES),
    length: INT(1, MAX_RES),
    batch_size: INT(1, 4096),
  });
  return {
    UNETLoader: {
      inputs: {
        unet_name: COMBO(models.diffusion_models),
        weight_dtype: COMBO(['default', 'fp8_e4m3fn', 'fp8_e4m3fn_fast', 'fp8_e5m2']),
      },
      outputs: ['MODEL'],
    },
    CLIPLoader: {
      inputs: {
        clip_name: COMBO(models.text_encoders),
        type: COMBO(['stable_diffusion', 'sd3', 'ltxv', 'wan', 'hidream', 'qwen_image']),
        device: { ...COMBO(['default', 'cpu']), optional: true },
      },
      outputs: ['CLIP'],
    },
    VAELoader: { inputs: { vae_name: COMBO(models.vae) }, outputs: ['VAE'] },
    ModelSamplingSD3: { inputs: { model: LINK('MODEL'), shift: FLOAT(0, 100) }, outputs: ['MODEL'] },
    CLIPTextEncode: { inputs: { text: STRING, clip: LINK('CLIP') }, outputs: ['CONDITIONING'] },
    LoadImage: {
      inputs: {
        image: { type: 'COMBO', validate: (v) => (inputExists(String(v)) ? true : `Invalid image file: ${v}`) },
      },
      outputs: ['IMAGE', 'MASK'],
    },
    // comfy_extras/nodes_audio.py: a file of the input folder (uploaded like an image), as AUDIO.
    LoadAudio: {
      inputs: {
        audio: { type: 'COMBO', validate: (v) => (inputExists(String(v)) ? true : `Invalid audio file: ${v}`) },
      },
      outputs: ['AUDIO'],
    },
    Wan22ImageToVideoLatent: {
      inputs: { vae: LINK('VAE'), ...latent(32), start_image: LINK('IMAGE', true) },
      outputs: ['LATENT'],
    },
    WanImageToVideo: {
      inputs: {
        positive: LINK('CONDITIONING'),
        negative: LINK('CONDITIONING'),
        vae: LINK('VAE'),
        ...latent(16),
        clip_vision_output: LINK('CLIP_VISION_OUTPUT', true),
        start_image: LINK('IMAGE', true),
      },
      outputs: ['CONDITIONING', 'CONDITIONING', 'LATENT'],
    },
    EmptyHunyuanLatentVideo: { inputs: latent(16), outputs: ['LATENT'] },
    KSampler: {
      inputs: {
        model: LINK('MODEL'),
        seed: INT(0, 2 ** 64 - 1),
        steps: INT(1, 10000),
        cfg: FLOAT(0, 100),
        sampler_name: COMBO(SAMPLERS),
        scheduler: COMBO(SCHEDULERS),
        positive: LINK('CONDITIONING'),
        negative: LINK('CONDITIONING'),
        latent_image: LINK('LATENT'),
        denoise: FLOAT(0, 1),
      },
      outputs: ['LATENT'],
    },
    VAEDecode: { inputs: { samples: LINK('LATENT'), vae: LINK('VAE') }, outputs: ['IMAGE'] },
    CreateVideo: {
      inputs: { images: LINK('IMAGE'), fps: FLOAT(1, 120), audio: LINK('AUDIO', true) },
      outputs: ['VIDEO'],
    },
    SaveVideo: {
      inputs: {
        video: LINK('VIDEO'),
        filename_prefix: STRING,
        format: COMBO(['auto', 'mp4']),
        codec: runtimeCodecCheck ? { type: 'COMBO' } : COMBO(SAVE_VIDEO_CODECS),
      },
      outputs: [],
      outputNode: true,
    },
    SaveWEBM: {
      inputs: {
        images: LINK('IMAGE'),
        filename_prefix: STRING,
        codec: COMBO(['vp9', 'av1']),
        fps: FLOAT(0.01, 1000),
        crf: FLOAT(0, 63),
      },
      outputs: [],
      outputNode: true,
    },
    ...referenceNodeDefs(models),
    VHS_VideoCombine: {
      inputs: {
        images: LINK('IMAGE'),
        frame_rate: FLOAT(1, 240),
        loop_count: INT(0, 100),
        filename_prefix: STRING,
        format: COMBO(['image/gif', 'image/webp', 'video/h264-mp4', 'video/webm']),
        pingpong: { type: 'BOOLEAN' },
        save_output: { type: 'BOOLEAN' },
      },
      outputs: ['VHS_FILENAMES'],
      outputNode: true,
    },
  };
}

const promptError = (type: string, message: string, details: string): ValidationError => ({
  type,
  message,
  details,
  extra_info: {},
});

export type Validation =
  | { ok: true; outputs: string[]; nodeErrors: Record<string, unknown> }
  | { ok: false; error: ValidationError; nodeErrors: Record<string, unknown> };

/** validate_prompt: class checks first (400 without node_errors), then each output's inputs. */
export function validatePrompt(prompt: Prompt, defs: Record<string, NodeDef>): Validation {
  const outputs: string[] = [];
  for (const [id, node] of Object.entries(prompt)) {
    if (!node || typeof node !== 'object' || node.class_type === undefined) {
      return {
        ok: false,
        error: promptError(
          'invalid_prompt',
          'Cannot execute because a node is missing the class_type property.',
          `Node ID '#${id}'`,
        ),
        nodeErrors: {},
      };
    }
    const def = defs[String(node.class_type)];
    if (!def) {
      return {
        ok: false,
        error: promptError(
          'invalid_prompt',
          `Cannot execute because node ${node.class_type} does not exist.`,
          `Node ID '#${id}'`,
        ),
        nodeErrors: {},
      };
    }
    if (def.outputNode) outputs.push(id);
  }
  if (outputs.length === 0)
    return { ok: false, error: promptError('prompt_no_outputs', 'Prompt has no outputs', ''), nodeErrors: {} };

  const validated = new Map<string, ValidationError[] | true>();
  const nodeErrors: Record<string, { errors: ValidationError[]; dependent_outputs: string[]; class_type: string }> = {};
  const good: string[] = [];
  const failed: ValidationError[] = [];
  for (const out of outputs) {
    if (validateNode(prompt, defs, out, validated)) {
      good.push(out);
      continue;
    }
    for (const [id, result] of validated) {
      // Downstream nodes of a bad one are invalid too, but carry no reasons; ComfyUI leaves them out.
      if (result === true || result.length === 0) continue;
      nodeErrors[id] ??= { errors: result, dependent_outputs: [], class_type: String(prompt[id].class_type) };
      nodeErrors[id].dependent_outputs.push(out);
      failed.push(...result);
    }
  }
  if (good.length === 0) {
    const details = failed.map((e) => `${e.message}: ${e.details}`).join('\n');
    return {
      ok: false,
      error: promptError('prompt_outputs_failed_validation', 'Prompt outputs failed validation', details),
      nodeErrors,
    };
  }
  return { ok: true, outputs: good, nodeErrors };
}

function validateNode(
  prompt: Prompt,
  defs: Record<string, NodeDef>,
  id: string,
  validated: Map<string, ValidationError[] | true>,
): boolean {
  const seen = validated.get(id);
  if (seen !== undefined) return seen === true;
  validated.set(id, []); // guards against cycles
  const node = prompt[id];
  const def = defs[String(node.class_type)];
  const inputs = node.inputs ?? {};
  const errors: ValidationError[] = [];
  let valid = true;
  const err = (type: string, message: string, details: string, name: string) =>
    errors.push({ type, message, details, extra_info: { input_name: name } });
  for (const [name, spec] of Object.entries(def.inputs)) {
    const value = inputs[name];
    if (value === undefined) {
      if (!spec.optional) err('required_input_missing', 'Required input is missing', name, name);
      continue;
    }
    if (Array.isArray(value)) {
      if (value.length !== 2) {
        err('bad_linked_input', 'Bad linked input, must be a length-2 list of [node_id, slot_index]', name, name);
        continue;
      }
      const source = prompt[String(value[0])];
      if (!source) {
        // ComfyUI raises a KeyError here, reported as an exception during validation.
        err('exception_during_validation', 'Exception when validating node', `'${value[0]}'`, name);
        continue;
      }
      const received = defs[String(source.class_type)]?.outputs[Number(value[1])];
      if (received !== spec.type) {
        err(
          'return_type_mismatch',
          'Return type mismatch between linked nodes',
          `${name}, received_type(${received}) mismatch input_type(${spec.type})`,
          name,
        );
        continue;
      }
      if (!validateNode(prompt, defs, String(value[0]), validated)) valid = false;
      continue;
    }
    checkValue(name, spec, value, err);
  }
  const result = errors.length === 0 && valid ? true : errors;
  validated.set(id, result);
  return result === true;
}

function checkValue(
  name: string,
  spec: InputSpec,
  value: unknown,
  err: (t: string, m: string, d: string, n: string) => void,
): void {
  if (spec.validate) {
    const r = spec.validate(value);
    if (r !== true) err('custom_validation_failed', 'Custom validation failed for node', `${name} - ${r}`, name);
    return;
  }
  if (spec.type === 'INT' || spec.type === 'FLOAT') {
    const n = typeof value === 'number' ? value : Number(value);
    if (typeof value === 'boolean' || !Number.isFinite(n) || (spec.type === 'INT' && !Number.isInteger(n))) {
      err('invalid_input_type', `Failed to convert an input value to a ${spec.type} value`, `${name}, ${value}`, name);
    } else if (spec.min !== undefined && n < spec.min) {
      err('value_smaller_than_min', `Value ${n} smaller than min of ${spec.min}`, name, name);
    } else if (spec.max !== undefined && n > spec.max) {
      err('value_bigger_than_max', `Value ${n} bigger than max of ${spec.max}`, name, name);
    }
  } else if (spec.type === 'COMBO' && spec.options && !spec.options.includes(String(value))) {
    err('value_not_in_list', 'Value not in list', `${name}: '${value}' not in ${JSON.stringify(spec.options)}`, name);
  }
}
