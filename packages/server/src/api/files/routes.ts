import type { FastifyInstance } from 'fastify';
import { FileDeleted, FileObject, FileUpload } from '@vidgen/protocol';
import type { FileRecord } from '../../store/file-store.ts';
import type { FileService } from '../../engine/file-service.ts';
import { ApiError } from '../../errors.ts';
import { callerOf } from '../authenticate.ts';
import { readUpload } from './multipart-upload.ts';
import { described, errorResponses, idParams } from '../route-schemas.ts';

const tags = ['Files'];
const errors = errorResponses();
const file = described(FileObject, 'The file');

function toFileObject(f: FileRecord): FileObject {
  return {
    id: f.id,
    object: 'file',
    bytes: f.bytes,
    created_at: Math.floor(f.createdAt / 1000),
    filename: f.filename,
    purpose: f.purpose,
    mime_type: f.mimeType,
    status: 'processed',
    expires_at: f.expiresAt ? Math.floor(f.expiresAt / 1000) : null,
  };
}

/** OpenAI-style file upload (multipart, field `file`, optional `purpose`). */
export function registerFileRoutes(app: FastifyInstance, deps: { files: FileService }) {
  app.post(
    '/v1/files',
    {
      schema: {
        operationId: 'uploadFile',
        summary: 'Upload a first frame, reference image, input video or batch input (multipart field `file`)',
        tags,
        response: { 200: file, ...errors },
      },
      // Multipart is parsed by the handler, not validated as a body: the form is declared for the document only.
      config: {
        swaggerTransform: ({ schema, url }) => ({
          schema: { ...schema, consumes: ['multipart/form-data'], body: FileUpload },
          url,
        }),
      },
    },
    async (request) => {
      if (!request.isMultipart()) {
        throw new ApiError(
          415,
          'invalid_request_error',
          'unsupported_media_type',
          'Upload files as multipart/form-data with the image in the field `file`.',
        );
      }
      const upload = await readUpload(request, (source, truncated) => deps.files.stage(source, truncated));
      const file = await deps.files.uploadStaged(callerOf(request).account.id, upload);
      return toFileObject(file);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/files/:id',
    {
      schema: {
        operationId: 'getFile',
        summary: 'File metadata',
        tags,
        params: idParams('id'),
        response: { 200: file, ...errors },
      },
    },
    async (request) => toFileObject(await deps.files.get(callerOf(request).account.id, request.params.id)),
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/files/:id',
    {
      schema: {
        operationId: 'deleteFile',
        summary: 'Delete a file',
        tags,
        params: idParams('id'),
        response: { 200: described(FileDeleted, 'Deleted'), ...errors },
      },
    },
    async (request): Promise<FileDeleted> => {
      await deps.files.delete(callerOf(request).account.id, request.params.id);
      return { id: request.params.id, object: 'file', deleted: true };
    },
  );
}
