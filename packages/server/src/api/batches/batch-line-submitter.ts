import { AjvCompiler } from '@fastify/ajv-compiler';
import type { TSchema } from '@vidgen/protocol';
import type { TaskService } from '../../engine/task-service.ts';
import type { LineOutcome, LineSubmitter, LineToSubmit } from '../../engine/batches/line-submitter.ts';
import { ApiError } from '../../errors.ts';
import type { Dialect } from '../dialects/dialect.ts';
import { fromSchemaIssues, inDialect, type SchemaIssue } from '../error-handler.ts';
import { idempotencyFor } from '../request-options.ts';
import { BODY_VALIDATION } from '../route-schemas.ts';
import { groupBody, splitGroup, submitGroups, submitInputOf, type Served } from '../submit-routes.ts';

type Validate = ((body: unknown) => boolean) & { errors?: SchemaIssue[] | null };

interface Endpoint {
  fallback: Served;
  /** The routes with a body claim, each with its claim's validator. */
  claimed: Array<{ served: Served; claims?: Validate }>;
  validate: Validate;
}

/**
 * The lines of a batch, submitted as their endpoint's create route submits a request body
 * (api/submit-routes.ts): the model's endpoint first, then the same body schema compiled by the
 * same validator Fastify uses with the app's options, the same pick of dialect on a shared path,
 * the same wire → domain mapping and the same task service. A refusal is rendered as that route
 * would answer it, in its dialect's words and envelope; only the lane and price differ (`batch`).
 */
export function createBatchLineSubmitter(dialects: readonly Dialect[], tasks: TaskService): LineSubmitter {
  const compile = AjvCompiler()({}, { customOptions: BODY_VALIDATION }) as (s: { schema: TSchema }) => Validate;
  const byEndpoint = new Map<string, Endpoint>();
  for (const [path, group] of submitGroups(dialects)) {
    if (path.includes(':')) continue;
    const { fallback, claimed } = splitGroup(group);
    byEndpoint.set(path, {
      fallback,
      claimed: claimed.map((served) => ({
        served,
        ...(served.route.claim ? { claims: compile({ schema: served.route.claim }) } : {}),
      })),
      validate: compile({ schema: groupBody(fallback, claimed) }),
    });
  }
  return {
    endpoints: [...byEndpoint.keys()],
    async submit(line: LineToSubmit): Promise<LineOutcome> {
      const endpoint = byEndpoint.get(line.endpoint);
      if (!endpoint) throw new Error(`no create route at ${line.endpoint}`);
      // A line has no headers: only a body claim picks another dialect than the path's own.
      const served = endpoint.claimed.find((c) => c.claims?.(line.body))?.served ?? endpoint.fallback;
      try {
        if (!served.dialect.servesEveryModel)
          tasks.checkServedHere(line.account, line.body.model, served.dialect.family);
        if (!endpoint.validate(line.body)) throw fromSchemaIssues(endpoint.validate.errors ?? [], 'body', line.body);
        const input = { ...submitInputOf(served, line.body), serviceTier: 'batch' as const, batchId: line.batchId };
        const idempotency = idempotencyFor(`batch:${line.batchId}:${line.line}`, line.endpoint, line.body);
        const { task } = await tasks.submit(line.account, input, idempotency, line.keyId ?? undefined);
        return { kind: 'queued', taskId: task.id };
      } catch (err) {
        // Only a refusal is the line's own; anything else is for a later retry of the line.
        if (!(err instanceof ApiError) || err.status >= 500 || err.code === 'idempotency_in_flight') throw err;
        const refusal = inDialect(err, line.body, served.dialect, dialects);
        return {
          kind: 'refused',
          status: refusal.status,
          error: { code: refusal.code, message: refusal.message, param: refusal.param },
          body: served.dialect.errorBody(refusal),
        };
      }
    },
  };
}
