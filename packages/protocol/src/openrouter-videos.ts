import { Type, type Static } from '@sinclair/typebox';
import { CallbackFields } from './callbacks.ts';
import { OutputFields, StorageVideo } from './storage.ts';
import { ServiceTierFields, StringEnum } from './common.ts';

/**
 * OpenRouter's video API shape on `POST /v1/videos`, as `@openrouter/ai-sdk-provider` 3.1.0 sends
 * and reads it (its `dist/index.js`, `OpenRouterVideoModel.doGenerate` and `pollUntilComplete`, and
 * `src/video/schemas.ts` there): a JSON create whose `frame_images` and `input_references` carry
 * images, videos and sound by URL; answers with `id`, `polling_url` and `status`, and once
 * completed `unsigned_urls` and `usage.cost`.
 */

const Url = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      description: 'An http(s) URL, a `data:…;base64,` URL, or a `file-…` id from `POST /v1/files`.',
    }),
  },
  { description: 'Where the input is.' },
);

export const OPENROUTER_FRAME_TYPES = ['first_frame', 'last_frame'] as const;

export const OpenRouterFrameImage = Type.Object(
  {
    type: StringEnum(['image_url'] as const),
    image_url: Url,
    frame_type: StringEnum(OPENROUTER_FRAME_TYPES, { description: 'Which frame of the video the image is.' }),
  },
  { description: 'A frame the video starts or ends on.' },
);
export type OpenRouterFrameImage = Static<typeof OpenRouterFrameImage>;

export const OPENROUTER_REFERENCE_TYPES = ['image_url', 'video_url', 'audio_url'] as const;

export const OpenRouterInputReference = Type.Object(
  {
    type: StringEnum(OPENROUTER_REFERENCE_TYPES, { description: 'The medium; the field of the same name holds it.' }),
    image_url: Type.Optional(Url),
    video_url: Type.Optional(Url),
    audio_url: Type.Optional(Url),
  },
  { description: 'A reference: an image, a video (or an OpenAI character by its `char_…` id), or sound.' },
);
export type OpenRouterInputReference = Static<typeof OpenRouterInputReference>;

export const OpenRouterVideoCreateBody = Type.Object({
  model: Type.String({ minLength: 1 }),
  prompt: Type.String(),
  duration: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Seconds.' })),
  aspect_ratio: Type.Optional(Type.String({ description: '`16:9`, `9:16`, `1:1`…' })),
  size: Type.Optional(Type.String({ description: 'Width x height (`1280x720`); must agree with `aspect_ratio`.' })),
  resolution: Type.Optional(Type.String({ description: '`480p`, `720p`, `1080p`.' })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
  generate_audio: Type.Optional(Type.Boolean()),
  frame_images: Type.Optional(Type.Array(OpenRouterFrameImage, { maxItems: 2 })),
  input_references: Type.Optional(Type.Array(OpenRouterInputReference, { maxItems: 16 })),
  ...CallbackFields,
  ...OutputFields,
  ...ServiceTierFields,
});
export type OpenRouterVideoCreateBody = Static<typeof OpenRouterVideoCreateBody>;

/** A body with any of these fields is OpenRouter's; a body with none is the OpenAI shape's (docs/openai-videos.md). */
export const OpenRouterVideoClaim = Type.Union([
  Type.Object({ duration: Type.Unknown() }),
  Type.Object({ aspect_ratio: Type.Unknown() }),
  Type.Object({ frame_images: Type.Unknown() }),
  Type.Object({ input_references: Type.Unknown() }),
]);

/**
 * The statuses the provider understands: `completed` ends its polling; `failed`, `cancelled` and
 * `expired` raise its error; any other keeps it polling.
 */
export const OPENROUTER_VIDEO_STATUSES = [
  'pending',
  'in_progress',
  'completed',
  'failed',
  'cancelled',
  'expired',
] as const;
export type OpenRouterVideoStatus = (typeof OPENROUTER_VIDEO_STATUSES)[number];

export const OpenRouterVideo = Type.Object({
  id: Type.String({ description: '`job-` and 32 hex digits.' }),
  object: Type.Literal('video'),
  polling_url: Type.String({ description: 'Where to poll: this path (`/v1/videos/{id}`).' }),
  status: StringEnum(OPENROUTER_VIDEO_STATUSES),
  model: Type.String(),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  duration: Type.Number({ description: 'Seconds of the video.' }),
  size: Type.String({ description: 'Width x height; empty until known.' }),
  unsigned_urls: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Once completed: absolute signed links to the MP4 that work without an Authorization header.',
    }),
  ),
  error: Type.Optional(Type.String({ description: 'Why it failed, was cancelled or expired; absent otherwise.' })),
  error_code: Type.Optional(Type.String({ description: "vidgen extension: the failure's code (docs/errors.md)." })),
  usage: Type.Optional(
    Type.Object({
      cost: Type.Number({ description: 'USD: `cost_in_usd_ticks` / 10^10.' }),
      cost_in_usd_ticks: Type.Integer({ minimum: 0, description: 'The settled price, exact: 10^10 ticks per USD.' }),
    }),
  ),
  has_audio: Type.Optional(Type.Boolean({ description: 'Whether the video has a sound track (asked and verified).' })),
  video: Type.Optional(StorageVideo),
});
export type OpenRouterVideo = Static<typeof OpenRouterVideo>;

export const OpenRouterVideoList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(OpenRouterVideo),
  first_id: Type.Union([Type.String(), Type.Null()]),
  last_id: Type.Union([Type.String(), Type.Null()]),
  has_more: Type.Boolean(),
});
