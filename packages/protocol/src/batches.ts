import { Type, type Static } from '@sinclair/typebox';
import { pageQuery } from './lists.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Time = (what: string) => Nullable(Type.Integer({ description: `Unix seconds ${what}; null until then.` }));

/** `POST /v1/batches`, as the openai SDKs send it (`BatchCreateParams`). */
export const BatchCreateBody = Type.Object({
  input_file_id: Type.String({ description: 'A file uploaded with `purpose: "batch"`: one request per line.' }),
  endpoint: Type.String({
    description:
      'The create route every line goes to: `/v1/videos` (the OpenAI shape), `/v1/videos/generations` ' +
      '(family A), `/v1/video/generations` (family B), `/v1/videos/edits` or `/v1/videos/extensions` ' +
      '(the body decides the dialect, as the route does).',
  }),
  completion_window: Type.String({ description: "`24h`, the only window offered (OpenAI's)." }),
  metadata: Type.Optional(
    Nullable(
      Type.Record(Type.String(), Type.String(), {
        description: 'At most 16 pairs; keys up to 64 characters, values up to 512.',
      }),
    ),
  ),
});
export type BatchCreateBody = Static<typeof BatchCreateBody>;

export const BatchErrorItem = Type.Object({
  code: Type.String(),
  message: Type.String(),
  param: Nullable(Type.String()),
  line: Nullable(Type.Integer({ description: 'The line of the input file, where one is to blame.' })),
});

/** OpenAI's `Batch` object, every field its SDKs type; times are Unix seconds. */
export const BatchObject = Type.Object({
  id: Type.String({ description: '`batch_…`' }),
  object: Type.Literal('batch'),
  endpoint: Type.String(),
  input_file_id: Type.String(),
  completion_window: Type.String(),
  status: Type.Union(
    ['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled'].map((s) =>
      Type.Literal(s),
    ),
  ),
  errors: Nullable(Type.Object({ object: Type.Literal('list'), data: Type.Array(BatchErrorItem) })),
  request_counts: Type.Object({ total: Type.Integer(), completed: Type.Integer(), failed: Type.Integer() }),
  output_file_id: Nullable(Type.String({ description: 'Lines that finished with a video (`batch_output`).' })),
  error_file_id: Nullable(Type.String({ description: 'Refused lines and lines that failed, each with its code.' })),
  metadata: Nullable(Type.Record(Type.String(), Type.String())),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  in_progress_at: Time('when its lines started to be queued'),
  finalizing_at: Time('when every line had ended and its files were being written'),
  completed_at: Time('when it completed'),
  failed_at: Time('when it failed'),
  expired_at: Time('when it expired'),
  expires_at: Type.Integer({ description: 'Unix seconds: the end of its 24h completion window.' }),
  cancelling_at: Time('when its cancel was asked for'),
  cancelled_at: Time('when it was cancelled'),
  cost_in_usd_ticks: Type.Integer({
    description:
      'A vidgen extension: what its lines cost in all so far (settled), in USD ticks. Not `usage`, which ' +
      'OpenAI types as tokens.',
  }),
});
export type BatchObject = Static<typeof BatchObject>;

/** `GET /v1/batches`: OpenAI's cursor page. */
export const BatchList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(BatchObject),
  first_id: Nullable(Type.String()),
  last_id: Nullable(Type.String()),
  has_more: Type.Boolean(),
});
export type BatchList = Static<typeof BatchList>;

export const BatchListQuery = Type.Object(pageQuery('A batch id'));
export type BatchListQuery = Static<typeof BatchListQuery>;
