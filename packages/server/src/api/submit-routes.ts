import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import multipart from '@fastify/multipart';
import { Type, type TSchema } from '@vidgen/protocol';
import type { SubmitInput, TaskService } from '../engine/task-service.ts';
import type { FileService } from '../engine/file-service.ts';
import { InvalidRequest } from '../errors.ts';
import type { Dialect, SubmitRoute } from './dialects/dialect.ts';
import { callerOf } from './authenticate.ts';
import { formBody } from './form-body.ts';
import { foreignAgreement } from './dialects/foreign-fields.ts';
import { multipartRefusal } from './files/multipart-upload.ts';
import { fromSchemaIssues, type SchemaIssue } from './error-handler.ts';
import { idempotencyOf, markReplay } from './request-options.ts';
import { described, errorResponses } from './route-schemas.ts';
import { IdempotencyHeader } from './task-routes.ts';

export interface SubmitRouteDeps {
  tasks: TaskService;
  /** Where a video sent as a file part is kept (as an upload of the account). */
  files: FileService;
  /** Largest file part of a multipart create (an image sent as `input_reference`). */
  uploadLimitBytes: number;
}

/** One dialect's create route. */
export interface Served {
  dialect: Dialect;
  route: SubmitRoute;
}

/** The create routes by path: where two dialects create at the same path, both are in its group. */
export function submitGroups(dialects: readonly Dialect[]): Map<string, Served[]> {
  const byPath = new Map<string, Served[]>();
  for (const dialect of dialects)
    for (const route of dialect.submits)
      byPath.set(route.path, [...(byPath.get(route.path) ?? []), { dialect, route }]);
  return byPath;
}

/** The create routes a batch may name as its endpoint: every one whose path has no parameter. */
export function batchEndpoints(dialects: readonly Dialect[]): string[] {
  return [...submitGroups(dialects).keys()].filter((path) => !path.includes(':'));
}

/** A group's route without a claim (it takes the bodies no claim matches), and the others. */
export function splitGroup(group: Served[]): { fallback: Served; claimed: Served[] } {
  const fallback = group.find((s) => !s.route.claim) ?? group[0];
  return { fallback, claimed: group.filter((s) => s !== fallback) };
}

/** The body schema of a group: `if claim then its body else the other`, so a refusal names the fields meant. */
export function groupBody(fallback: Served, claimed: Served[]): TSchema {
  return claimed.reduceRight<TSchema>(
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, never awaited
    (otherwise, s) => ({ if: s.route.claim, then: s.route.body, else: otherwise }) as unknown as TSchema,
    fallback.route.body,
  );
}

/**
 * A checked body in domain words, as its dialect's create route makes it (a batch's lines are
 * made the same way: api/batches/batch-line-submitter.ts).
 */
export function submitInputOf(served: Served, body: unknown): SubmitInput {
  const { dialect, route } = served;
  const agrees = foreignAgreement(dialect.foreignFields, body);
  return {
    ...route.toInput(body as never),
    family: dialect.family,
    ...(dialect.servesEveryModel ? { everyModel: true } : {}),
    ...(agrees ? { agrees } : {}),
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** On a path several dialects serve: the dialect a request is for, read from its body. */
    dialectOf?: (request: FastifyRequest) => Dialect;
  }
}

/**
 * The create routes of every dialect. Where two dialects create at the same path (family A's and
 * the OpenAI dialect's `POST /v1/videos/edits`), one route serves both, and the body decides:
 * the route whose `claim` schema it matches, else the one without a claim. The body schema is
 * `if claim then its body else the other`, so a refusal names the fields of the body that was
 * meant. Routes that take multipart are registered where it is parsed, and only there.
 */
export async function registerSubmitRoutes(
  app: FastifyInstance,
  dialects: readonly Dialect[],
  deps: SubmitRouteDeps,
): Promise<void> {
  const groups = [...submitGroups(dialects).values()];
  const plain = groups.filter((group) => !group.some((s) => s.route.multipart));
  const forms = groups.filter((group) => group.some((s) => s.route.multipart));
  for (const group of plain) registerGroup(app, group, deps);
  if (forms.length === 0) return;
  // Multipart is parsed only here: the plugin hooks every response of its scope.
  await app.register(async (scope) => {
    await scope.register(multipart, {
      attachFieldsToBody: true,
      limits: { fileSize: deps.uploadLimitBytes, files: 2, fields: 20 },
    });
    // A form the parser refuses is a 400 like any bad body (the root handler renders it).
    scope.setErrorHandler((err: Error & { validation?: unknown }, request) => {
      throw request.isMultipart() && !err.validation ? multipartRefusal(err) : err;
    });
    // A video part is stored before the form is checked (it is too large to hold as a data URL); a
    // refused request, or a replay that answers with the first task, removes what it stored: the
    // caller never learns those ids (invariant 4, docs/architecture.md).
    const stored = new WeakMap<FastifyRequest, string[]>();
    scope.addHook('preValidation', async (request) => {
      if (!request.isMultipart()) return;
      const accountId = callerOf(request).account.id;
      // The OpenAI dialect's forms (the only multipart creates) name an uploaded video `{id}`.
      request.body = await formBody(request.body, async (field, filename, bytes) => {
        try {
          const { id } = await deps.files.upload(accountId, { filename, bytes, purpose: 'video' });
          stored.set(request, [...(stored.get(request) ?? []), id]);
          return { id };
        } catch (err) {
          if (!(err instanceof InvalidRequest)) throw err;
          throw new InvalidRequest(err.code, err.message.replace('`file`', `\`${field}\``), field);
        }
      });
    });
    scope.addHook('onSend', async (request, reply) => {
      const ids = stored.get(request);
      if (!ids || (reply.statusCode < 300 && reply.getHeader('idempotent-replayed') !== 'true')) return;
      stored.delete(request);
      const accountId = callerOf(request).account.id;
      for (const id of ids) await deps.files.delete(accountId, id).catch(() => undefined);
    });
    for (const group of forms) registerGroup(scope, group, deps);
  });
}

function registerGroup(app: FastifyInstance, group: Served[], deps: SubmitRouteDeps): void {
  const { fallback, claimed } = splitGroup(group);
  // Also asked by the error handler, for bodies that never parsed: then the route without a claim answers.
  const pick = (request: FastifyRequest): Served => {
    if (typeof request.body !== 'object' || request.body === null) return fallback;
    return (
      claimed.find((s) => s.route.claim && request.validateInput(request.body, s.route.claim)) ??
      claimed.find((s) => s.route.claimsHeaders?.(request.headers)) ??
      fallback
    );
  };
  const config: FastifyContextConfig = { dialect: fallback.dialect };
  if (group.length > 1) config.dialectOf = (request) => pick(request).dialect;
  // The model's endpoint is checked before its fields: a family B model posted to family A's path
  // without a field only B lacks should learn where to go, not which field to add.
  const preValidation = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    const model = (request.body as { model?: unknown } | null)?.model;
    const dialect = group.length === 1 ? fallback.dialect : pick(request).dialect;
    try {
      if (!dialect.servesEveryModel) deps.tasks.checkServedHere(callerOf(request).account, model, dialect.family);
      done();
    } catch (err) {
      done(err as Error);
    }
  };
  const options = { schema: groupSchema(group, fallback, claimed), config, preValidation };
  app.post(fallback.route.path, options, async (request, reply) => {
    const served = group.length === 1 ? fallback : pick(request);
    const { route } = served;
    // Claimed by its headers alone, the body was checked as the other route's: check it as this one's.
    if (route.claimsHeaders && !(route.claim && request.validateInput(request.body, route.claim))) {
      const check = request.compileValidationSchema(route.body);
      if (!check(request.body)) throw fromSchemaIssues((check.errors ?? []) as SchemaIssue[], 'body', request.body);
    }
    const input = submitInputOf(served, request.body);
    const caller = callerOf(request);
    const submitted = await deps.tasks.submit(caller.account, input, idempotencyOf(request), caller.keyId);
    markReplay(reply, submitted);
    return served.route.toAnswer(submitted.task);
  });
}

function groupSchema(group: Served[], fallback: Served, claimed: Served[]): FastifySchema {
  const body = groupBody(fallback, claimed);
  const answers = group.map((s) => s.route.answer);
  const tags = [...new Set(group.map((s) => s.dialect.tag))];
  return {
    operationId: fallback.route.operationId,
    summary: group.map((s) => s.route.summary).join('; or '),
    description:
      [fallback.route.description, ...claimed.map((s) => s.route.description)].filter(Boolean).join(' ') || undefined,
    tags,
    body,
    ...(group.some((s) => s.route.multipart) ? { consumes: ['application/json', 'multipart/form-data'] } : {}),
    headers: IdempotencyHeader,
    response: {
      200: described(
        answers.length === 1 ? answers[0] : Type.Union(answers),
        'Task created (or, for a reused Idempotency-Key, the first answer again)',
      ),
      ...errorResponses(fallback.dialect.schemas.error),
    },
  };
}
