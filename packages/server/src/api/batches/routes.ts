import type { FastifyInstance } from 'fastify';
import { BatchCreateBody, BatchList, BatchListQuery, BatchObject } from '@vidgen/protocol';
import type { BatchService } from '../../engine/batches/batch-service.ts';
import { callerOf } from '../authenticate.ts';
import { pageLimitOf } from '../pages.ts';
import { described, errorResponses, idParams } from '../route-schemas.ts';
import { toBatchObject } from './batch-wire.ts';

const tags = ['Batches'];
const errors = errorResponses();
const batch = described(BatchObject, 'The batch');

/**
 * OpenAI's Batch API over the create routes (docs/batch.md). The service is built on the first
 * request (`batches` imports it then): a server nobody sends a batch never loads it.
 */
export function registerBatchRoutes(app: FastifyInstance, deps: { batches: () => Promise<BatchService> }): void {
  app.post<{ Body: BatchCreateBody }>(
    '/v1/batches',
    {
      schema: {
        operationId: 'createBatch',
        summary: 'Create a batch: every line of a `purpose: "batch"` file is a create request of one endpoint',
        tags,
        body: BatchCreateBody,
        response: { 200: batch, ...errors },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { input_file_id, endpoint, completion_window, metadata } = request.body;
      const created = await (await deps.batches()).create(
        caller.account,
        { inputFileId: input_file_id, endpoint, completionWindow: completion_window, metadata },
        caller.keyId,
      );
      return toBatchObject(created);
    },
  );

  app.get<{ Params: { batch_id: string } }>(
    '/v1/batches/:batch_id',
    {
      schema: {
        operationId: 'retrieveBatch',
        summary: 'A batch',
        tags,
        params: idParams('batch_id'),
        response: { 200: batch, ...errors },
      },
    },
    async (request) =>
      toBatchObject(await (await deps.batches()).get(callerOf(request).account.id, request.params.batch_id)),
  );

  app.get<{ Querystring: BatchListQuery }>(
    '/v1/batches',
    {
      schema: {
        operationId: 'listBatches',
        summary: "The account's batches, newest first, a page at a time (`after` = the last id of a page)",
        tags,
        querystring: BatchListQuery,
        response: { 200: described(BatchList, 'A page of batches'), ...errors },
      },
    },
    async (request): Promise<BatchList> => {
      const limit = pageLimitOf(request.query.limit);
      const page = await (await deps.batches()).list(
        callerOf(request).account.id,
        request.query.after || undefined,
        limit,
      );
      const data = page.batches.map(toBatchObject);
      return {
        object: 'list',
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: page.hasMore,
      };
    },
  );

  app.post<{ Params: { batch_id: string } }>(
    '/v1/batches/:batch_id/cancel',
    {
      schema: {
        operationId: 'cancelBatch',
        summary: 'Cancel a batch: it is `cancelling` until its running lines are cancelled, then `cancelled`',
        tags,
        params: idParams('batch_id'),
        response: { 200: batch, ...errors },
      },
    },
    async (request) =>
      toBatchObject(await (await deps.batches()).cancel(callerOf(request).account.id, request.params.batch_id)),
  );
}
