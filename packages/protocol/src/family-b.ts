import { Type, type Static } from '@sinclair/typebox';
import { TaskError } from './common.ts';

/** Family B (new-api relay style). `image` and `images` are alternatives, checked by the service. */
export const FamilyBCreateBody = Type.Object({
  model: Type.String({ minLength: 1 }),
  prompt: Type.String(),
  image: Type.Optional(Type.String()),
  images: Type.Optional(Type.Array(Type.String(), { maxItems: 8 })),
  ratio: Type.Optional(Type.String()),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295 })),
});
export type FamilyBCreateBody = Static<typeof FamilyBCreateBody>;

export const FAMILY_B_STATUSES = ['queued', 'IN_PROGRESS', 'SUCCESS', 'FAILURE'] as const;
export type FamilyBStatus = (typeof FAMILY_B_STATUSES)[number];
const FamilyBStatusSchema = Type.Union(FAMILY_B_STATUSES.map((s) => Type.Literal(s)));

export const FamilyBCreateResponse = Type.Object({
  task_id: Type.String(),
  status: FamilyBStatusSchema,
  seconds: Type.String(),
});
export type FamilyBCreateResponse = Static<typeof FamilyBCreateResponse>;

export const FamilyBTask = Type.Object({
  task_id: Type.String(),
  status: FamilyBStatusSchema,
  progress: Type.Number({ minimum: 0, maximum: 100 }),
  /** While queued: tasks the fair scheduler will start before this one (an estimate). */
  queue_position: Type.Optional(Type.Integer({ minimum: 0 })),
  seconds: Type.String(),
  model: Type.String(),
  result_url: Type.Optional(Type.String()),
  error: Type.Optional(TaskError),
});
export type FamilyBTask = Static<typeof FamilyBTask>;
