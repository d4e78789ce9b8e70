import { Type, type Static } from '@sinclair/typebox';
import { ServiceTierFields, StringEnum, TaskServiceTier, TaskError, TaskUsage } from './common.ts';
import { CallbackFields } from './callbacks.ts';
import { OutputFields, StorageVideo } from './storage.ts';

/** Family B (new-api relay style). `image` and `images` are alternatives, checked by the service. */
export const FamilyBCreateBody = Type.Object({
  model: Type.String({ minLength: 1 }),
  prompt: Type.String(),
  image: Type.Optional(Type.String({ description: 'The first frame: an http(s) URL or a data URI.' })),
  images: Type.Optional(
    Type.Array(Type.String(), {
      maxItems: 8,
      description: '`images[0]` is the first frame, `images[1..]` reference images (models that take them).',
    }),
  ),
  last_frame: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'vidgen extension: the last frame, an http(s) URL or a data URI (models that take one).',
    }),
  ),
  ratio: Type.Optional(Type.String()),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
  ...CallbackFields,
  ...OutputFields,
  ...ServiceTierFields,
  generate_audio: Type.Optional(
    Type.Boolean({
      description:
        'vidgen extension (new-api passes unknown fields through): true for a video with sound, ' +
        "false for a silent one; default: the model's own.",
    }),
  ),
});
export type FamilyBCreateBody = Static<typeof FamilyBCreateBody>;

export const FAMILY_B_STATUSES = ['queued', 'IN_PROGRESS', 'SUCCESS', 'FAILURE'] as const;
export type FamilyBStatus = (typeof FAMILY_B_STATUSES)[number];
const FamilyBStatusSchema = StringEnum(FAMILY_B_STATUSES);

export const FamilyBCreateResponse = Type.Object({
  task_id: Type.String(),
  status: FamilyBStatusSchema,
  seconds: Type.String(),
});
export type FamilyBCreateResponse = Static<typeof FamilyBCreateResponse>;

/**
 * A family B task. Field order is the order the service writes them in, so answers keep their
 * byte layout now that they are serialized from this schema.
 */
export const FamilyBTask = Type.Object({
  task_id: Type.String(),
  status: FamilyBStatusSchema,
  progress: Type.Number({ minimum: 0, maximum: 100 }),
  seconds: Type.String(),
  model: Type.String(),
  queue_position: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: 'While queued: tasks the fair scheduler will start before this one (an estimate; vidgen extension).',
    }),
  ),
  result_url: Type.Optional(Type.String({ description: 'Relative path of the video; fetch it with the API key.' })),
  has_audio: Type.Optional(
    Type.Boolean({ description: 'vidgen extension: the video has a verified, non-silent audio track.' }),
  ),
  expired: Type.Optional(
    Type.Literal(true, {
      description:
        'vidgen extension: the result was deleted when its retention ended. Family B has no word for it, so the ' +
        'status stays SUCCESS and the content answers 410.',
    }),
  ),
  video: Type.Optional(StorageVideo),
  error: Type.Optional(TaskError),
  service_tier: Type.Optional(TaskServiceTier),
  usage: Type.Optional(TaskUsage),
});
export type FamilyBTask = Static<typeof FamilyBTask>;
