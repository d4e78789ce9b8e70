import { Type } from '@vidgen/protocol';
import type { Task, TaskStatus } from '../../../packages/server/src/domain/task.ts';
import { submitRoute, type Dialect } from '../../../packages/server/src/api/dialects/dialect.ts';

/**
 * A made-up third API dialect, to prove that a dialect is one descriptor: its own paths, body
 * field names (`engine`, `text`, `shape`, `length_s`), status words and error envelope, and not
 * a line of the engine or the store changed for it.
 */
const WORDS: Record<TaskStatus, string> = {
  queued: 'WAITING',
  running: 'WORKING',
  succeeded: 'READY',
  failed: 'BROKEN',
  canceled: 'BROKEN',
  expired: 'GONE',
};
const NAMES: Record<string, string> = { model: 'engine', prompt: 'text', aspectRatio: 'shape', duration: 'length_s' };

const ToyJobBody = Type.Object({
  engine: Type.String({ minLength: 1 }),
  text: Type.String(),
  shape: Type.Optional(Type.String()),
  length_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 })),
});

// What the toy answers with. Answers are serialized from these, so they declare every field sent.
const ToyJob = Type.Object({
  job: Type.String(),
  state: Type.String(),
  percent: Type.Number(),
  download: Type.Optional(Type.String()),
  problem: Type.Optional(Type.String()),
});
const ToyError = Type.Object({
  ok: Type.Literal(false),
  problem: Type.Object({ code: Type.String(), field: Type.Union([Type.String(), Type.Null()]), text: Type.String() }),
});

export const toyDialect: Dialect = {
  family: 'C',
  idField: 'job',
  submits: [
    submitRoute({
      path: '/toy/v2/jobs',
      kind: 'generate',
      body: ToyJobBody,
      toInput: (body) => ({
        kind: 'generate',
        model: body.engine,
        prompt: body.text,
        inputs: [],
        aspectRatio: body.shape,
        duration: body.length_s,
      }),
      answer: Type.Object({ job: Type.String(), state: Type.String() }),
      toAnswer: (task) => ({ job: task.id, state: 'WAITING' }),
      operationId: 'createToyJob',
      summary: 'Toy: start a job',
    }),
  ],
  paths: { poll: '/toy/v2/jobs/:job', cancel: '/toy/v2/jobs/:job/abort', list: '/toy/v2/jobs' },
  operations: {
    poll: { operationId: 'getToyJob', summary: 'Toy: look at a job', statusCodes: { 200: 'The job' } },
    cancel: { operationId: 'abortToyJob', summary: 'Toy: abort a job' },
    list: { operationId: 'listToyJobs', summary: 'Toy: list jobs' },
  },
  tag: 'Toy',
  schemas: { task: ToyJob, error: ToyError },
  statusWords: {
    WAITING: ['queued'],
    WORKING: ['running'],
    READY: ['succeeded'],
    BROKEN: ['failed', 'canceled'],
    GONE: ['expired'],
  },
  fieldName: (field) => NAMES[field] ?? field,
  toWire: (task: Task) => ({
    job: task.id,
    state: WORDS[task.status],
    percent: task.progress,
    ...(task.status === 'succeeded' ? { download: `/v1/videos/${task.id}/content` } : {}),
    ...(task.error ? { problem: task.error.code } : {}),
  }),
  pollStatus: (task) =>
    task.status === 'queued' || task.status === 'running' ? { code: 200, retryAfterSeconds: 2 } : { code: 200 },
  inFlightRetryAfterSeconds: 3,
  errorBody: (error) => ({ ok: false, problem: { code: error.code, field: error.param, text: error.message } }),
};
