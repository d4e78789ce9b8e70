import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountStore } from '../../store/account-store.ts';
import type { TaskService } from '../../engine/task-service.ts';
import type { BlobStore } from '../../blobs/blob-store.ts';
import type { Task } from '../../domain/task.ts';
import type { UrlSigner } from '../../security/url-signer.ts';
import { ApiError, Conflict, DeliveredElsewhere, Gone, type ApiErrorCode } from '../../errors.ts';
import { callerOf, type Authenticate } from '../authenticate.ts';
import { signedAccess } from './signed-access.ts';
import { parseRange } from './byte-range.ts';
import {
  CONTENT_VARIANT_MEDIA_TYPES,
  ContentQuery,
  Mp4Video,
  PosterImage,
  SpriteSheetImage,
  Type,
} from '@vidgen/protocol';
import { contentFile } from './variants.ts';
import { ReadBuffers } from './read-buffers.ts';
import { errorResponses, idParams, KEY_OPTIONAL } from '../route-schemas.ts';
import type { Dialect } from '../dialects/dialect.ts';

interface ContentDeps {
  tasks: TaskService;
  /** Dialects whose wire ids are not task ids (`video_…`) name their tasks here by those ids too. */
  dialects: readonly Dialect[];
  accounts: AccountStore;
  blobs: BlobStore;
  signer: UrlSigner;
  authenticate: Authenticate;
  signedUrlTtlSeconds: number;
  clock: () => number;
}

/**
 * Slices up to this size are read at once and sent as one buffer; larger ones are streamed. A
 * synchronous read of this size blocks no longer than one chunk of a streamed file does.
 */
const READ_AT_ONCE_BYTES = 1024 * 1024;

type ContentRequest = FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string> }>;

/**
 * `GET|HEAD /v1/videos/{id}/content`: the MP4, with the Bearer key or a signed link. Nothing
 * is served before the task succeeded, and only whole, verified files exist to serve.
 */
export function registerContentRoutes(app: FastifyInstance, deps: ContentDeps) {
  const signed = signedAccess(deps, 'This download link has expired; poll the task again for a fresh one.');
  const buffers = new ReadBuffers();
  const handler = async (request: ContentRequest, reply: FastifyReply) => {
    const task = await authorizedTask(request, deps, signed);
    // Deleted by its owner is a 404 (OpenAI's answer, which its SDKs raise as NotFoundError), in its own
    // words; expiry keeps its 410 (the "gone" table of docs/errors.md).
    if (task.deletedAt != null)
      throw new ApiError(
        404,
        'not_found_error',
        'video_deleted',
        'The video was deleted by its owner (DELETE /v1/videos/{id}); it cannot be downloaded again.',
      );
    if (task.result?.delivery?.removed) throw new DeliveredElsewhere();
    if (task.status === 'expired')
      throw new Gone('video_expired', 'The video was deleted when its retention period ended.');
    if (task.status !== 'succeeded' || !task.result) {
      const why =
        task.status === 'failed' || task.status === 'canceled' ? 'the task failed' : 'the task has not finished yet';
      throw new Conflict('video_not_ready', `No video to download: ${why}.`);
    }
    const { etag, blobKey, contentType, filename, missing } = contentFile(task, task.result, request.query.variant);
    const stat = await deps.blobs.stat(blobKey);
    if (!stat) throw missing();
    if (deps.blobs.presignedGetUrl) {
      // Object storage serves the bytes (Range, 206/416) itself; the link lives no longer than ours.
      const url = await deps.blobs.presignedGetUrl(blobKey, {
        expiresInSeconds: Math.min(deps.signedUrlTtlSeconds, 3600),
        contentType,
        filename,
      });
      return reply.code(302).header('location', url).header('cache-control', 'private, no-store').send();
    }
    reply
      .header('content-type', contentType)
      .header('accept-ranges', 'bytes')
      .header('etag', etag)
      .header('cache-control', 'private, max-age=3600')
      .header('content-disposition', `inline; filename="${filename}"`);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    const ifRange = request.headers['if-range'];
    const range =
      ifRange && ifRange !== etag ? { kind: 'full' as const } : parseRange(request.headers.range, stat.size);
    if (range.kind === 'unsatisfiable') {
      return reply
        .code(416)
        .header('content-range', `bytes */${stat.size}`)
        .header('content-type', 'application/json')
        .send({
          error: {
            message: 'The requested range is outside the file.',
            type: 'invalid_request_error',
            code: 'range_not_satisfiable' satisfies ApiErrorCode,
            param: null,
          },
        });
    }
    const slice = range.kind === 'partial' ? range.range : { start: 0, end: stat.size - 1 };
    reply.header('content-length', String(slice.end - slice.start + 1));
    if (range.kind === 'partial')
      reply.code(206).header('content-range', `bytes ${slice.start}-${slice.end}/${stat.size}`);
    // HEAD gets the headers only: handing Fastify a stream would make it read the whole file.
    if (request.method === 'HEAD' || stat.size === 0) return reply.send();
    const length = slice.end - slice.start + 1;
    if (deps.blobs.readNow && length <= READ_AT_ONCE_BYTES)
      return reply.send(deps.blobs.readNow(blobKey, slice, buffers.take(length, reply.raw)));
    return reply.send(await deps.blobs.read(blobKey, slice));
  };
  const url = '/v1/videos/:id/content';
  const config = { publicWithSignature: true };
  // GET and HEAD are separate routes so the document lists both with distinct operationIds
  // (the swagger plugin suffixes a HEAD route's id: `downloadVideo-head`).
  app.route({
    method: 'GET',
    url,
    exposeHeadRoute: false,
    config,
    handler,
    schema: contentSchema('Download the MP4, or with `variant` its poster or sprite sheet (Range supported)'),
  });
  app.route({
    method: 'HEAD',
    url,
    config: { ...config, swagger: { exposeHeadRoute: true } },
    handler,
    schema: contentSchema('The headers of the download (type, size, ETag) without its bytes'),
  });
}

// One media type per answer the query can ask for: the MP4 without `variant`, else the variant's image.
const bytes = (description: string) => ({
  description,
  content: {
    'video/mp4': { schema: Mp4Video },
    [CONTENT_VARIANT_MEDIA_TYPES.thumbnail]: { schema: PosterImage },
    [CONTENT_VARIANT_MEDIA_TYPES.spritesheet]: { schema: SpriteSheetImage },
  },
});
const WHICH =
  `the MP4 (\`video/mp4\`); with \`variant=thumbnail\` its poster (\`${CONTENT_VARIANT_MEDIA_TYPES.thumbnail}\`), ` +
  `with \`variant=spritesheet\` its sprite sheet (\`${CONTENT_VARIANT_MEDIA_TYPES.spritesheet}\`)`;
const empty = (description: string) => Type.Null({ description });

/** Bytes are streamed, never serialized; only the JSON errors go through the error schema. */
function contentSchema(summary: string) {
  return {
    operationId: 'downloadVideo',
    summary,
    tags: ['Content'],
    description:
      'Authorized by the API key, or by the signed link a family A poll hands out (`expires`, `kid`, `sig`), ' +
      'valid until it expires or its key is revoked.',
    ...KEY_OPTIONAL,
    params: idParams('id'),
    querystring: ContentQuery,
    response: {
      200: bytes(`The whole file: ${WHICH}`),
      206: bytes(`The requested byte range of the file: ${WHICH}`),
      302: empty('With object storage: a redirect to a short-lived presigned URL of the file'),
      304: empty('Not modified (`If-None-Match` matched the ETag)'),
      ...errorResponses(),
    },
  };
}

async function authorizedTask(
  request: ContentRequest,
  deps: ContentDeps,
  signed: ReturnType<typeof signedAccess>,
): Promise<Task> {
  const id = taskIdOf(deps.dialects, request.params.id);
  if (request.query.sig === undefined) {
    await deps.authenticate(request);
    return deps.tasks.get(callerOf(request).account.id, id);
  }
  return deps.tasks.get(await signed(id, request.query), id);
}

function taskIdOf(dialects: readonly Dialect[], id: string): string {
  for (const dialect of dialects) {
    const taskId = dialect.wireIds?.toTask(id);
    if (taskId !== undefined) return taskId;
  }
  return id;
}
