import { Type, type Static } from '@sinclair/typebox';
import { ServiceTierFields, StringEnum, TaskServiceTier, TaskError, TaskUsage } from './common.ts';
import { CallbackFields } from './callbacks.ts';
import { OutputFields, StorageAnswerFields } from './storage.ts';

/** Sound, asked for the same way on a generation, an edit and an extension. */
const GenerateAudio = Type.Optional(
  Type.Boolean({
    description:
      'Sound: true for a video with an audio track, false for a silent one; ' +
      "default: the model's own (see `sound` in GET /v1/models).",
  }),
);

/**
 * Family A (xAI "imagine video" style). Rules that need a message a person can act on
 * (exactly one of url/file_id, data-URI prefixes, ratios per model) are checked by the
 * service; the schema fixes shapes and ranges.
 */
export const FamilyAImage = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1 })),
    file_id: Type.Optional(Type.String({ minLength: 1 })),
  },
  { description: 'First frame: exactly one of `url` or `file_id`.' },
);
export type FamilyAImage = Static<typeof FamilyAImage>;

/** One input image besides the first frame: exactly one of `url` or `file_id`. */
const InputImage = (description: string) =>
  Type.Object(
    { url: Type.Optional(Type.String({ minLength: 1 })), file_id: Type.Optional(Type.String({ minLength: 1 })) },
    { description },
  );

export const FamilyAKeyframe = Type.Object(
  {
    image: InputImage('The frame: exactly one of `url` or `file_id`.'),
    timestamp_s: Type.Number({ description: 'When the video shows it, in seconds: after 0 and before `duration`.' }),
  },
  { description: 'An image the video passes through at a time (models whose `inputs.keyframes` is above 0).' },
);
export type FamilyAKeyframe = Static<typeof FamilyAKeyframe>;

export const FamilyAReferenceAudio = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1 })),
    file_id: Type.Optional(Type.String({ minLength: 1 })),
    voice_id: Type.Optional(Type.String({ minLength: 1, description: 'Refused: no model here declares voices.' })),
  },
  { description: 'Reference audio (WAV, MP3, AAC/M4A; at most 15 s, 10 MB): exactly one of `url` or `file_id`.' },
);
export type FamilyAReferenceAudio = Static<typeof FamilyAReferenceAudio>;

/** What a family A generation may be composed from besides its first frame (docs/inputs.md). */
const FamilyAInputs = {
  last_frame: Type.Optional(InputImage('The last frame (models whose `inputs.last_frame` is true).')),
  keyframes: Type.Optional(Type.Array(FamilyAKeyframe, { maxItems: 4 })),
  reference_images: Type.Optional(
    Type.Array(InputImage('A reference image: exactly one of `url` or `file_id`.'), { maxItems: 7 }),
  ),
  reference_audios: Type.Optional(Type.Array(FamilyAReferenceAudio, { maxItems: 3 })),
};

export const FamilyACreateBody = Type.Object({
  model: Type.String({ minLength: 1 }),
  prompt: Type.String(),
  image: Type.Optional(FamilyAImage),
  ...FamilyAInputs,
  duration: Type.Integer({ minimum: 1, maximum: 15 }),
  aspect_ratio: Type.Optional(Type.String()),
  resolution: Type.Optional(
    Type.String({
      description:
        "Output resolution (`480p`, `720p`, `1080p`) where the model offers a choice; default: the model's own.",
    }),
  ),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
  ...CallbackFields,
  ...OutputFields,
  ...ServiceTierFields,
  generate_audio: GenerateAudio,
});
export type FamilyACreateBody = Static<typeof FamilyACreateBody>;

/** Edits and extensions take a source video; only models that offer them accept these. */
export const FamilyAVideoInput = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1 })),
    file_id: Type.Optional(Type.String({ minLength: 1 })),
    request_id: Type.Optional(Type.String({ minLength: 1 })),
  },
  {
    description:
      'Input video: exactly one of `url` (http/https MP4), `file_id` (an uploaded MP4) or `request_id` (a done ' +
      'task of the same account).',
  },
);
export type FamilyAVideoInput = Static<typeof FamilyAVideoInput>;
export const FamilyAEditBody = Type.Object({
  model: Type.String({ minLength: 1 }),
  prompt: Type.String(),
  video: FamilyAVideoInput,
  ...CallbackFields,
  ...OutputFields,
  ...ServiceTierFields,
  generate_audio: GenerateAudio,
});
export type FamilyAEditBody = Static<typeof FamilyAEditBody>;
export const FamilyAExtensionBody = Type.Object({
  model: Type.String({ minLength: 1 }),
  prompt: Type.String(),
  video: FamilyAVideoInput,
  duration: Type.Integer({ minimum: 1, maximum: 10, description: 'Seconds added after the input video.' }),
  ...CallbackFields,
  ...OutputFields,
  ...ServiceTierFields,
  generate_audio: GenerateAudio,
});
export type FamilyAExtensionBody = Static<typeof FamilyAExtensionBody>;

export const FamilyACreateResponse = Type.Object({ request_id: Type.String() });
export type FamilyACreateResponse = Static<typeof FamilyACreateResponse>;

export const FAMILY_A_STATUSES = ['pending', 'done', 'failed', 'expired'] as const;
export type FamilyAStatus = (typeof FAMILY_A_STATUSES)[number];

export const FamilyATask = Type.Object({
  request_id: Type.String(),
  status: StringEnum(FAMILY_A_STATUSES, {
    description: 'pending (queued or running), done, failed (canceled included) or expired (the video was deleted).',
  }),
  model: Type.String(),
  progress: Type.Number({ minimum: 0, maximum: 100 }),
  queue_position: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'While queued: tasks the fair scheduler will start before this one (an estimate; vidgen extension).',
    }),
  ),
  video: Type.Optional(
    Type.Object({
      url: Type.String(),
      duration: Type.Number(),
      thumbnail_url: Type.Optional(
        Type.String({ description: 'Absolute, signed link to the poster image (WebP); vidgen extension.' }),
      ),
      has_audio: Type.Optional(
        Type.Boolean({ description: 'The video has a verified, non-silent audio track (vidgen extension).' }),
      ),
      ...StorageAnswerFields,
    }),
  ),
  error: Type.Optional(TaskError),
  service_tier: Type.Optional(TaskServiceTier),
  usage: Type.Optional(TaskUsage),
});
export type FamilyATask = Static<typeof FamilyATask>;
