import type { FileRecord, FileStore } from '../store/file-store.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import { InvalidRequest, NotFound } from '../errors.ts';
import { newId } from './ids.ts';

/** Checks that bytes are a usable image (decodable, under the pixel cap); throws an error with a safe message when not. */
export type ImageCheck = (bytes: Buffer) => Promise<{ mimeType: string }>;

/** Uploaded images that `image.file_id` refers to. Files belong to the account that uploaded them. */
export class FileService {
  constructor(
    private readonly deps: { files: FileStore; blobs: BlobStore; checkImage: ImageCheck; clock: () => number },
  ) {}

  async upload(accountId: string, upload: { filename: string; bytes: Buffer; purpose: string }): Promise<FileRecord> {
    if (upload.bytes.length === 0) throw new InvalidRequest('invalid_file', 'The uploaded file is empty.', 'file');
    let mimeType: string;
    try {
      ({ mimeType } = await this.deps.checkImage(upload.bytes));
    } catch (err) {
      throw new InvalidRequest('invalid_file', `\`file\`: ${(err as Error).message}`, 'file');
    }
    const id = newId('file');
    const record: FileRecord = {
      id, accountId, filename: sanitizeFilename(upload.filename), bytes: upload.bytes.length, mimeType,
      purpose: upload.purpose, blobKey: `files/${id}`, createdAt: this.deps.clock(),
    };
    await this.deps.blobs.putBuffer(record.blobKey, upload.bytes, mimeType);
    await this.deps.files.insert(record);
    return record;
  }

  async get(accountId: string, id: string): Promise<FileRecord> {
    const file = await this.deps.files.get(id);
    if (!file || file.accountId !== accountId) throw new NotFound('file', id);
    return file;
  }

  async delete(accountId: string, id: string): Promise<void> {
    const file = await this.get(accountId, id);
    await this.deps.files.delete(file.id);
    await this.deps.blobs.delete(file.blobKey);
  }
}

function sanitizeFilename(name: string): string {
  const cleaned = name.replace(/[^\w.\- ]+/g, '_').slice(0, 200);
  return cleaned || 'upload';
}
