import type { ModelObject } from '@vidgen/client';

/**
 * The submit rules of the service, checked before sending so mistakes are caught while
 * typing. They mirror the server's (task-service, image-refs); the server stays the judge,
 * and its message is shown whenever it still refuses.
 */
export const MAX_PROMPT_LENGTH = 4000;
/** Family B `images` holds at most this many entries (protocol maxItems). */
export const MAX_REFERENCE_IMAGES = 8;
export const ACCEPTED_IMAGE_TYPES = ['image/png', 'image/jpeg'];
export const DEFAULT_RATIO = '16:9';

export interface FormValues {
  prompt: string;
  ratio: string;
  /** Family A only. */
  duration?: number;
  imageUrls: string[];
  imageFiles: File[];
  /** Optional; a whole number from 0 to 2³²−1. */
  seed?: number;
  /** `generate_audio`, for models whose sound is optional; absent: the model's default. */
  sound?: boolean;
  /** The last frame, as a URL or a file (one of the two), for models that take one. */
  lastFrameUrls: string[];
  lastFrameFiles: File[];
  /** Family A's `reference_images`, URLs first, then files. */
  referenceUrls: string[];
  referenceFiles: File[];
}

/** Field id → message. */
export type FieldErrors = Record<string, string>;

export function checkForm(model: ModelObject, v: FormValues): FieldErrors {
  const errors: FieldErrors = {};
  const prompt = v.prompt.trim();
  if (!prompt) errors.prompt = 'Describe the video: the prompt must not be empty.';
  else if (prompt.length > MAX_PROMPT_LENGTH)
    errors.prompt = `The prompt must be at most ${MAX_PROMPT_LENGTH} characters.`;
  if (!model.aspect_ratios.includes(v.ratio))
    errors['aspect-ratio'] = `Choose one of ${model.aspect_ratios.join(', ')}.`;
  if (v.seed !== undefined && !(Number.isInteger(v.seed) && v.seed >= 0 && v.seed <= 4294967295))
    errors.seed = 'The seed must be a whole number from 0 to 4294967295.';
  if (model.family === 'A') Object.assign(errors, checkFamilyA(model, v));
  else Object.assign(errors, checkFamilyB(model, v));
  Object.assign(errors, checkInputs(model, v));
  return errors;
}

/** The last frame and family A's reference images, within what the model's `inputs` take. */
function checkInputs(model: ModelObject, v: FormValues): FieldErrors {
  const errors: FieldErrors = {};
  if (v.lastFrameUrls.length + v.lastFrameFiles.length > 1)
    errors['last-frame-url'] = 'Give the last frame either as a URL or as a file, not both.';
  const lastUrl = v.lastFrameUrls.map(checkUrl).find(Boolean);
  if (lastUrl) errors['last-frame-url'] = lastUrl;
  const lastFile = v.lastFrameFiles.map(checkFile).find(Boolean);
  if (lastFile) errors['last-frame-file'] = lastFile;
  const refUrl = v.referenceUrls.map(checkUrl).find(Boolean);
  if (refUrl) errors['reference-urls'] = refUrl;
  const refFile = v.referenceFiles.map(checkFile).find(Boolean);
  if (refFile) errors['reference-files'] = refFile;
  const most = model.inputs?.reference_images ?? 0;
  if (v.referenceUrls.length + v.referenceFiles.length > most)
    errors['reference-files'] = `At most ${most} reference images in all (URLs and files together).`;
  return errors;
}

function checkFamilyA(model: ModelObject, v: FormValues): FieldErrors {
  const errors: FieldErrors = {};
  const { min, max } = durationRange(model);
  if (v.duration === undefined || !Number.isInteger(v.duration) || !model.durations.includes(v.duration)) {
    errors.duration = `Duration must be a whole number of seconds from ${min} to ${max}.`;
  }
  const given = v.imageUrls.length + v.imageFiles.length;
  if (given > 1) errors['first-frame-url'] = 'Give the first frame either as a URL or as a file, not both.';
  else if (given === 0 && model.requires_image)
    errors['first-frame-url'] = 'This model animates a first frame: give an image URL or choose a file.';
  const urlError = v.imageUrls.map(checkUrl).find(Boolean);
  if (urlError) errors['first-frame-url'] = urlError;
  const fileError = v.imageFiles.map(checkFile).find(Boolean);
  if (fileError) errors['first-frame-file'] = fileError;
  return errors;
}

function checkFamilyB(model: ModelObject, v: FormValues): FieldErrors {
  const errors: FieldErrors = {};
  const urlError = v.imageUrls.map(checkUrl).find(Boolean);
  if (urlError) errors['image-urls'] = urlError;
  const fileError = v.imageFiles.map(checkFile).find(Boolean);
  if (fileError) errors['image-files'] = fileError;
  const total = v.imageUrls.length + v.imageFiles.length;
  if (total > MAX_REFERENCE_IMAGES)
    errors['image-files'] = `At most ${MAX_REFERENCE_IMAGES} reference images in all (URLs and files together).`;
  if (total === 0 && model.requires_image) errors['image-urls'] = 'This model needs at least one reference image.';
  return errors;
}

function checkUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return undefined;
  } catch {
    /* fall through */
  }
  return `'${url.length > 60 ? `${url.slice(0, 57)}…` : url}' is not an http(s) URL.`;
}

function checkFile(file: File): string | undefined {
  if (ACCEPTED_IMAGE_TYPES.includes(file.type)) return undefined;
  return `'${file.name}' is not a PNG or JPEG image.`;
}

export function durationRange(model: ModelObject): { min: number; max: number } {
  const sorted = [...model.durations].sort((a, b) => a - b);
  return { min: sorted[0] ?? 1, max: sorted[sorted.length - 1] ?? 15 };
}

export function defaultRatio(model: ModelObject): string {
  return model.aspect_ratios.includes(DEFAULT_RATIO) ? DEFAULT_RATIO : (model.aspect_ratios[0] ?? DEFAULT_RATIO);
}

/** One line on what a model does and accepts, for the form and the model list. */
export function describeModel(model: ModelObject): string {
  const { min, max } = durationRange(model);
  const duration = min === max ? `${min}\u00a0s` : `${min}–${max}\u00a0s`;
  const input =
    model.family === 'A'
      ? model.requires_image
        ? 'animates a first frame'
        : 'text or first frame'
      : model.requires_image
        ? 'image-to-video'
        : 'text-to-video or image-to-video';
  return (
    `Family ${model.family} · ${input} · ${model.resolution} · ${duration} · ratios ` +
    `${model.aspect_ratios.join(', ')}`
  );
}

/**
 * Field ids of the form for the server's `error.param`, so its message lands beside the right
 * control. URLs are sent before uploaded files, so an index tells which of the two it was.
 */
export function fieldForParam(family: string, param: string | null, v: FormValues): string | undefined {
  if (!param) return undefined;
  if (param === 'prompt' || param === 'model' || param === 'duration') return param;
  if (param === 'aspect_ratio' || param === 'ratio') return 'aspect-ratio';
  if (param.startsWith('last_frame')) return v.lastFrameUrls.length ? 'last-frame-url' : 'last-frame-file';
  const reference = /^reference_images\[(\d+)\]/.exec(param)?.[1];
  if (reference !== undefined) return Number(reference) < v.referenceUrls.length ? 'reference-urls' : 'reference-files';
  if (param === 'image.file_id' || param === 'file') return 'first-frame-file';
  if (family === 'A') return param.startsWith('image') ? 'first-frame-url' : undefined;
  const index = /^images\[(\d+)\]$/.exec(param)?.[1];
  if (param === 'image' || index !== undefined)
    return Number(index ?? 0) < v.imageUrls.length ? 'image-urls' : 'image-files';
  return param === 'images' ? 'image-urls' : undefined;
}
