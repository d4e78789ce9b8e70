/**
 * The inputs a task composes its video from: one list, each input with a role. Every dialect maps
 * its own field names onto these roles (docs/inputs.md); the engine, the store and the backends see
 * only the roles. A backend that cannot take a role never receives it: the model's and the channel's
 * `ModelInputs` are checked at submit, and an input the model does not take is refused there
 * (invariant 4, docs/architecture.md), never dropped.
 */
export type InputRole =
  | 'first_frame'
  | 'last_frame'
  | 'keyframe'
  | 'reference_image'
  | 'reference_audio'
  | 'reference_video';

/**
 * Where an input's bytes come from: a URL (checked at submit, fetched by the worker through the
 * SSRF-safe fetcher), an upload in `/v1/files`, or a blob stored at submit (an inline data URI).
 * The same three kinds as an input image, for every medium.
 */
export type MediaRef = { kind: 'url'; url: string } | { kind: 'file'; fileId: string } | { kind: 'blob'; key: string };

export interface TaskInput {
  role: InputRole;
  ref: MediaRef;
  /** A keyframe's time in seconds from the start of the output, 0 < t < duration; keyframes only. */
  atSeconds?: number;
}

/**
 * What a model (or a relay channel) takes, as `/v1/models` shows it: the first two are booleans,
 * the next four the most of each it takes, and `exclusive` lists groups of declaration keys of which
 * a request may use at most one (Veo's reference images and its frames: `[["reference_images",
 * "first_frame"], ["reference_images", "last_frame"]]`).
 */
export interface ModelInputs {
  first_frame: boolean;
  last_frame: boolean;
  keyframes: number;
  reference_images: number;
  reference_audios: number;
  reference_videos: number;
  exclusive: InputDeclarationKey[][];
}

export type InputDeclarationKey = Exclude<keyof ModelInputs, 'exclusive'>;

/** The declaration key that counts a role. */
export const DECLARATION_KEY: Readonly<Record<InputRole, InputDeclarationKey>> = {
  first_frame: 'first_frame',
  last_frame: 'last_frame',
  keyframe: 'keyframes',
  reference_image: 'reference_images',
  reference_audio: 'reference_audios',
  reference_video: 'reference_videos',
};

/** A model that takes one first frame and nothing else: what every model took before references. */
export const FIRST_FRAME_ONLY: ModelInputs = Object.freeze({
  first_frame: true,
  last_frame: false,
  keyframes: 0,
  reference_images: 0,
  reference_audios: 0,
  reference_videos: 0,
  exclusive: [],
}) as ModelInputs;

/** The inputs of one role, in the order the request gave them. */
export function inputsWithRole(inputs: readonly TaskInput[], role: InputRole): TaskInput[] {
  return inputs.filter((input) => input.role === role);
}

/** What an input of each role is: the medium its bytes must be. */
export type InputMedium = 'image' | 'audio' | 'video';
export const INPUT_MEDIUM: Readonly<Record<InputRole, InputMedium>> = {
  first_frame: 'image',
  last_frame: 'image',
  keyframe: 'image',
  reference_image: 'image',
  reference_audio: 'audio',
  reference_video: 'video',
};
