import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';

/** What a listing adds to each poll object; `idempotency_key` is null for a task created without one. */
export const ListedFields = Type.Object({
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  idempotency_key: Type.Union([Type.String(), Type.Null()], {
    description: 'The `Idempotency-Key` the task was created with.',
  }),
  prompt: Type.String({ description: 'The prompt, as the task keeps it (trimmed).' }),
  requested_model: Type.String({ description: 'The model name exactly as the client sent it (an id or an alias).' }),
  started_at: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Unix seconds when its last attempt started; null while queued.',
  }),
  finished_at: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Unix seconds when it ended; null until then.',
  }),
});
export type Listed<T> = T & Static<typeof ListedFields>;

/** A page of a cursor listing, newest first: pass `last_id` as `after` while `has_more`. */
export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  last_id: string | null;
}

/** The schema of {@link ListEnvelope}: a page of `item`s. */
export function PageOf<T extends TSchema>(item: T) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    has_more: Type.Boolean(),
    last_id: Type.Union([Type.String(), Type.Null()]),
  });
}

/** `?limit=` and `?after=` of a cursor listing, `after` naming what kind of id it takes. */
export function pageQuery(after: string) {
  return {
    limit: Type.Optional(Type.String({ description: 'Page size, an integer from 1 to 100 (default 20).' })),
    after: Type.Optional(Type.String({ description: `${after}: the page after it.` })),
  };
}

/** The listing of a dialect's tasks: its poll object plus {@link ListedFields}, in the list envelope. */
export function TaskList(task: TObject) {
  return PageOf(Type.Composite([task, ListedFields]));
}

/**
 * Filters of a task listing. Query values stay strings, as they arrive: the service checks
 * them itself so each refusal names the field in words a person can act on.
 */
export const TaskListQuery = Type.Object({
  ...pageQuery('A task id'),
  status: Type.Optional(Type.String({ description: "A status in the dialect's own words." })),
  model: Type.Optional(Type.String()),
  created_after: Type.Optional(Type.String({ description: 'Unix seconds.' })),
  idempotency_key: Type.Optional(Type.String({ description: 'Only the task created with this `Idempotency-Key`.' })),
});

export const PollQuery = Type.Object({
  wait: Type.Optional(
    Type.String({ description: 'Long-poll: answer when the task changes or after this many seconds (0–60).' }),
  ),
});
