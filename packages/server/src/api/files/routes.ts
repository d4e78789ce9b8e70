import type { FastifyInstance } from 'fastify';
import type { FileDeleted, FileObject } from '@vidgen/protocol';
import type { FileRecord } from '../../store/file-store.ts';
import type { FileService } from '../../engine/file-service.ts';
import { ApiError } from '../../errors.ts';
import { callerOf } from '../authenticate.ts';
import { readUpload } from './multipart-upload.ts';

function toFileObject(f: FileRecord): FileObject {
  return {
    id: f.id, object: 'file', bytes: f.bytes, created_at: Math.floor(f.createdAt / 1000),
    filename: f.filename, purpose: f.purpose, mime_type: f.mimeType,
  };
}

/** OpenAI-style file upload (multipart, field `file`, optional `purpose`). */
export function registerFileRoutes(app: FastifyInstance, deps: { files: FileService }) {
  app.post('/v1/files', async (request) => {
    if (!request.isMultipart()) {
      throw new ApiError(415, 'invalid_request_error', 'unsupported_media_type', 'Upload files as multipart/form-data with the image in the field `file`.');
    }
    const upload = await readUpload(request);
    const file = await deps.files.upload(callerOf(request).account.id, upload);
    return toFileObject(file);
  });

  app.get<{ Params: { id: string } }>('/v1/files/:id', async (request) =>
    toFileObject(await deps.files.get(callerOf(request).account.id, request.params.id)),
  );

  app.delete<{ Params: { id: string } }>('/v1/files/:id', async (request): Promise<FileDeleted> => {
    await deps.files.delete(callerOf(request).account.id, request.params.id);
    return { id: request.params.id, object: 'file', deleted: true };
  });
}
