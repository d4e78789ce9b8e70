/**
 * Checked by the compiler, never run (as task-types.typecheck.ts): every input role of every
 * dialect's create is typed and exported from the SDK, so a caller's mistake in one (a string where
 * family A wants `{url}`, a keyframe without its time, family B's object where it wants a string)
 * fails the typecheck. Each `@ts-expect-error` fails `npm run check` the day its line compiles.
 */
import type {
  FamilyACreateBody,
  FamilyAInputImage,
  FamilyAInputs,
  FamilyAKeyframe,
  FamilyAReferenceAudio,
  FamilyBCreateBody,
  FamilyBInputs,
  ModelInputs,
  OpenAiImageReference,
  OpenAiVideoCreateBody,
  OpenAiVideoInputs,
  OpenRouterVideoInputs,
} from '../src/index.ts';

const png = 'data:image/png;base64,iVBORw0KGgo=';

export const everyFamilyAInput: FamilyACreateBody = {
  model: 'grok-imagine-video-1.5',
  prompt: 'a harbour at dawn',
  duration: 4,
  generate_audio: true,
  image: { file_id: 'file-first' },
  last_frame: { url: png },
  keyframes: [{ image: { url: 'https://example.com/k.png' }, timestamp_s: 2.5 }],
  reference_images: [{ url: png }, { file_id: 'file-ref' }],
  reference_audios: [{ file_id: 'file-bed' }],
};

export const last: FamilyAInputImage = { file_id: 'file-last' };
export const keyframe: FamilyAKeyframe = { image: last, timestamp_s: 1 };
export const bed: FamilyAReferenceAudio = { url: 'https://example.com/bed.wav' };
export const aInputs: FamilyAInputs = { last_frame: last, keyframes: [keyframe], reference_audios: [bed] };

// @ts-expect-error: family A takes an input as an object, `{url}` or `{file_id}`, never a bare string
export const lastAsString: FamilyAInputs = { last_frame: png };
// @ts-expect-error: a keyframe has its time in seconds
export const keyframeWithoutTime: FamilyAKeyframe = { image: { url: png } };
// @ts-expect-error: a keyframe's time is a number of seconds, not text
export const keyframeTimeAsText: FamilyAKeyframe = { image: { url: png }, timestamp_s: '2.5' };
// @ts-expect-error: the field is `reference_images`, as xAI names it
export const misnamed: FamilyAInputs = { references: [{ url: png }] };

export const everyFamilyBInput: FamilyBCreateBody = {
  model: 'video-v1-5s',
  prompt: 'a harbour at dawn',
  images: [png, 'https://example.com/ref.png'],
  last_frame: png,
};
export const bInputs: FamilyBInputs = { image: png, last_frame: 'https://example.com/last.png' };
// @ts-expect-error: family B takes a URL or data URI string, not family A's object
export const bObject: FamilyBInputs = { last_frame: { url: png } };
// @ts-expect-error: family B's images are strings
export const bImages: FamilyBInputs = { images: [{ url: png }] };

export const openAi: OpenAiVideoCreateBody = {
  prompt: 'a harbour at dawn',
  model: 'sora-2',
  input_reference: { image_url: png },
};
export const openAiRef: OpenAiImageReference = { file_id: 'file-first' };
export const openAiInputs: OpenAiVideoInputs = { input_reference: openAiRef };
// @ts-expect-error: OpenAI's reference names its URL `image_url`
export const openAiUrl: OpenAiVideoInputs = { input_reference: { url: png } };

export const openRouter: OpenRouterVideoInputs = {
  frame_images: [
    { type: 'image_url', image_url: { url: png }, frame_type: 'first_frame' },
    { type: 'image_url', image_url: { url: 'file-last' }, frame_type: 'last_frame' },
  ],
  input_references: [{ type: 'video_url', video_url: { url: 'https://example.com/ref.mp4' } }],
};
export const openRouterBadFrame: OpenRouterVideoInputs = {
  // @ts-expect-error: a frame is the first or the last, no other
  frame_images: [{ type: 'image_url', image_url: { url: png }, frame_type: 'middle_frame' }],
};

export function takesLastFrame(inputs: ModelInputs): boolean {
  const most: number = inputs.keyframes + inputs.reference_images + inputs.reference_audios + inputs.reference_videos;
  // @ts-expect-error: first_frame and last_frame are booleans, the rest counts
  const count: number = inputs.last_frame;
  return inputs.last_frame && most + count >= 0;
}
