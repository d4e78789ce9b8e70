import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@vidgen/protocol';
import type { AccountStore } from '../../store/account-store.ts';
import type { BlobStore } from '../../blobs/blob-store.ts';
import type { FileService } from '../../engine/file-service.ts';
import type { UrlSigner } from '../../security/url-signer.ts';
import { NotFound } from '../../errors.ts';
import { callerOf, type Authenticate } from '../authenticate.ts';
import { signedAccess } from '../content/signed-access.ts';
import { errorResponses, idParams, KEY_OPTIONAL } from '../route-schemas.ts';

interface FileContentDeps {
  files: FileService;
  blobs: BlobStore;
  accounts: AccountStore;
  signer: UrlSigner;
  authenticate: Authenticate;
  clock: () => number;
}

type FileRequest = FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string> }>;

/**
 * `GET /v1/files/{id}/content`: the bytes of one of the account's files (OpenAI's route), with the
 * Bearer key or a signed link (`storage_options.public_url`, docs/storage.md). Another account's
 * file is 404, as an unknown one is.
 */
export function registerFileContentRoute(app: FastifyInstance, deps: FileContentDeps) {
  const signed = signedAccess(deps, 'This file link has expired; poll the task again for a fresh one.');
  app.get(
    '/v1/files/:id/content',
    {
      config: { publicWithSignature: true },
      schema: {
        operationId: 'downloadFile',
        summary: "The bytes of one of the account's files",
        description: 'Authorized by the API key, or by a signed link (`expires`, `kid`, `sig`).',
        tags: ['Files'],
        ...KEY_OPTIONAL,
        params: idParams('id'),
        querystring: Type.Object({
          expires: Type.Optional(Type.String()),
          kid: Type.Optional(Type.String()),
          sig: Type.Optional(Type.String()),
        }),
        response: {
          200: { description: 'The file', content: { 'application/octet-stream': { schema: { type: 'string' } } } },
          302: Type.Null({ description: 'With object storage: a redirect to a short-lived presigned URL' }),
          ...errorResponses(),
        },
      },
    },
    async (request: FileRequest, reply: FastifyReply) => {
      const { id } = request.params;
      let accountId: string;
      if (request.query.sig === undefined) {
        await deps.authenticate(request);
        accountId = callerOf(request).account.id;
      } else accountId = await signed(id, request.query);
      const file = await deps.files.get(accountId, id);
      const stat = await deps.blobs.stat(file.blobKey);
      if (!stat) throw new NotFound('file', id);
      const filename = file.filename.replace(/["\\\r\n]/g, '_');
      if (deps.blobs.presignedGetUrl) {
        const url = await deps.blobs.presignedGetUrl(file.blobKey, {
          expiresInSeconds: 3600,
          contentType: file.mimeType,
          filename,
        });
        return reply.code(302).header('location', url).header('cache-control', 'private, no-store').send();
      }
      reply
        .header('content-type', file.mimeType)
        .header('content-length', String(stat.size))
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `attachment; filename="${filename}"`);
      return reply.send(await deps.blobs.read(file.blobKey));
    },
  );
}
