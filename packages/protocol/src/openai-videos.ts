import { Type, type Static } from '@sinclair/typebox';
import { CallbackFields } from './callbacks.ts';
import { OutputFields, StorageVideo } from './storage.ts';
import { ServiceTierFields, StringEnum, TaskServiceTier, TaskUsage } from './common.ts';

/**
 * Sound, as family A asks for it. Multipart bodies carry it as text, so `"true"` and `"false"` are
 * read as the booleans.
 */
const GenerateAudio = Type.Optional(
  Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')], {
    description: "Sound: true for a video with an audio track, false for a silent one; default: the model's own.",
  }),
);

/**
 * The OpenAI Videos API, as the official `openai` SDKs send and read it (openai-node
 * `src/resources/videos.ts`, openai-python `src/openai/resources/videos/videos.py`). Bodies come
 * as JSON or as multipart; multipart keys in brackets (`input_reference[image_url]`,
 * `video[id]`) are read as the nested fields they name, so one schema checks both.
 */

/** `seconds` is text on this wire (`"4"`); a number is taken too. */
const Seconds = Type.Union([Type.String(), Type.Integer()], {
  description: 'Clip length in seconds, as text (`"4"`, `"8"`, `"12"` or what the model lists).',
});

export const OpenAiImageReference = Type.Object(
  {
    image_url: Type.Optional(Type.String({ description: 'An http(s) URL or a `data:image/…;base64,` URL.' })),
    file_id: Type.Optional(Type.String({ description: 'An image uploaded with `POST /v1/files`.' })),
  },
  { description: 'The first frame: exactly one of `image_url` or `file_id`, or (multipart) an image file part.' },
);
export type OpenAiImageReference = Static<typeof OpenAiImageReference>;

export const OpenAiVideoCreateBody = Type.Object({
  prompt: Type.String(),
  model: Type.Optional(Type.String({ minLength: 1, description: 'Default `sora-2`.' })),
  seconds: Type.Optional(Seconds),
  size: Type.Optional(Type.String({ description: 'Width x height (`1280x720`); default `720x1280`.' })),
  input_reference: Type.Optional(
    Type.Union([
      OpenAiImageReference,
      Type.String({ description: 'Multipart: the image file part (PNG or JPEG); read as a data URL of its bytes.' }),
    ]),
  ),
  generate_audio: GenerateAudio,
  ...CallbackFields,
  ...OutputFields,
  ...ServiceTierFields,
});
export type OpenAiVideoCreateBody = Static<typeof OpenAiVideoCreateBody>;

export const OpenAiVideoReference = Type.Object(
  { id: Type.String({ minLength: 1, description: 'A completed `video_…` of this account, or a `file-…` MP4.' }) },
  { description: 'The source video.' },
);
export type OpenAiVideoReference = Static<typeof OpenAiVideoReference>;

export const OpenAiVideoEditBody = Type.Object({
  prompt: Type.String(),
  video: OpenAiVideoReference,
  model: Type.Optional(Type.String({ minLength: 1, description: "Default: the source video's model." })),
  generate_audio: GenerateAudio,
  ...CallbackFields,
  ...OutputFields,
  ...ServiceTierFields,
});
export type OpenAiVideoEditBody = Static<typeof OpenAiVideoEditBody>;

export const OpenAiVideoExtendBody = Type.Object({
  prompt: Type.String(),
  video: OpenAiVideoReference,
  seconds: Seconds,
  model: Type.Optional(Type.String({ minLength: 1, description: "Default: the source video's model." })),
  generate_audio: GenerateAudio,
  ...CallbackFields,
  ...OutputFields,
  ...ServiceTierFields,
});
export type OpenAiVideoExtendBody = Static<typeof OpenAiVideoExtendBody>;

export const OpenAiVideoRemixBody = Type.Object({ prompt: Type.String() });
export type OpenAiVideoRemixBody = Static<typeof OpenAiVideoRemixBody>;

/**
 * What tells an OpenAI edit or extension from family A's on the paths both serve: a video
 * referenced by `id` (family A names it by `url`, `file_id` or `request_id`).
 */
export const OpenAiVideoClaim = Type.Object({ video: Type.Object({ id: Type.String() }) });

export const OPENAI_VIDEO_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
export type OpenAiVideoStatus = (typeof OPENAI_VIDEO_STATUSES)[number];

export const OpenAiVideo = Type.Object({
  id: Type.String({ description: '`video_` and 32 hex digits.' }),
  object: Type.Literal('video'),
  model: Type.String(),
  status: StringEnum(OPENAI_VIDEO_STATUSES),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  completed_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds; null until completed.' }),
  expires_at: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Unix seconds when the stored video is deleted; null until completed.',
  }),
  prompt: Type.Union([Type.String(), Type.Null()]),
  seconds: Type.String(),
  size: Type.String({ description: 'Width x height; empty until known for a video made from an uploaded one.' }),
  remixed_from_video_id: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
  service_tier: Type.Optional(TaskServiceTier),
  usage: Type.Optional(TaskUsage),
  has_audio: Type.Optional(
    Type.Boolean({ description: 'vidgen extension: whether the video has a sound track (asked for and verified).' }),
  ),
  video: Type.Optional(StorageVideo),
});
export type OpenAiVideo = Static<typeof OpenAiVideo>;

export const OpenAiVideoList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(OpenAiVideo),
  first_id: Type.Union([Type.String(), Type.Null()]),
  last_id: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});
export type OpenAiVideoList = Static<typeof OpenAiVideoList>;

export const OpenAiVideoListQuery = Type.Object({
  after: Type.Optional(Type.String({ description: 'A `video_…` id: the page after it.' })),
  limit: Type.Optional(Type.String({ description: 'Page size, an integer from 1 to 100 (default 20).' })),
  order: Type.Optional(StringEnum(['asc', 'desc'] as const, { description: 'By creation time; default `desc`.' })),
});

export const OpenAiVideoDeleted = Type.Object({
  id: Type.String(),
  object: Type.Literal('video.deleted'),
  deleted: Type.Boolean(),
});
