import { Type, type Static, type TUnsafe } from '@sinclair/typebox';

/** Every aspect ratio the service understands (spec 4.1); a model may allow fewer. */
export const ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '3:2', '2:3'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];
export const DEFAULT_ASPECT_RATIO: AspectRatio = '16:9';
/**
 * Ratios a model may list beyond those: OpenAI's pro sizes 1792x1024 and 1024x1792 are 7:4 and
 * 4:7. Not in ASPECT_RATIOS, so a model that lists no ratios does not offer them.
 */
export const MODEL_ASPECT_RATIOS: readonly string[] = [...ASPECT_RATIOS, '7:4', '4:7'];

/** The only data-URI prefixes accepted for inline images (spec 2.4). */
export const DATA_URI_PREFIXES = ['data:image/jpeg;base64,', 'data:image/png;base64,'] as const;

/**
 * A closed set of words as one `enum`, not a union of literals: the OpenAPI document reads
 * better, and the response serializer writes it without trying each branch in turn.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      type: Type.String(),
      code: Type.Union([Type.String(), Type.Null()]),
      param: Type.Union([Type.String(), Type.Null()], {
        description: 'The request field the error is about, as the caller named it.',
      }),
    }),
  },
  { description: 'The OpenAI-style error envelope; `error.code` is listed in docs/errors.md.' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const TaskError = Type.Object({ code: Type.String(), message: Type.String() });
export type TaskError = Static<typeof TaskError>;

/** What a settled task cost, in xAI's unit and field name: integer USD ticks (1 tick = 10⁻¹⁰ USD). */
export const TaskUsage = Type.Object(
  {
    cost_in_usd_ticks: Type.Integer({
      minimum: 0,
      description:
        'The settled price: the verified output, never more than was held at submit; 0 for a task that ended ' +
        'without a result.',
    }),
  },
  { description: 'Present once the task is settled (it ended).' },
);
export type TaskUsage = Static<typeof TaskUsage>;

/** The service tiers a submit may ask for (xAI's and Seedance's field; an extension elsewhere). */
export const REQUESTED_SERVICE_TIERS = ['default', 'flex', 'priority'] as const;
/** Spread into every dialect's submit body. */
export const ServiceTierFields = {
  service_tier: Type.Optional(
    StringEnum(REQUESTED_SERVICE_TIERS, {
      description:
        '`priority` is started before other work at the catalog’s priority price; `flex` runs when the lane has ' +
        'room, at the batch price; default `default`. The tiers an account may use are set by its operator.',
    }),
  ),
};
/** A task's tier in answers: what it asked for, or `batch` for a line of a batch. */
export const TaskServiceTier = StringEnum(['default', 'flex', 'priority', 'batch'] as const, {
  description: 'How the task is claimed and priced (vidgen extension outside xAI): `batch` for a batch’s lines.',
});
