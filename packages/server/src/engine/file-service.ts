import type { FileRecord, FileStore } from '../store/file-store.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import { InvalidRequest, NotFound } from '../errors.ts';
import { isMp4 } from '../media/video-input.ts';
import { sniffImageType } from '../media/image-input.ts';
import { sniffAudioType } from '../media/audio-input.ts';
import { newId } from '../domain/ids.ts';

/**
 * Checks that bytes are a usable image (decodable, under the pixel cap); throws an error with a safe message when not.
 */
export type ImageCheck = (bytes: Buffer) => Promise<{ mimeType: string }>;
/** Checks that bytes are a usable MP4 (see media/video-input.ts); throws an error with a safe message when not. */
export type VideoCheck = (bytes: Buffer) => Promise<{ mimeType: 'video/mp4' }>;
/** Checks that bytes are usable reference audio (media/audio-input.ts: WAV, MP3, AAC/M4A; 15 s, 10 MB at most). */
export type AudioCheck = (bytes: Buffer) => Promise<{ mimeType: string }>;

/**
 * Uploaded files: images a task may start from or be shaped by, reference audio, and MP4 videos
 * an edit, an extension or a reference may take as its input (each dialect names the reference
 * its own way). Files belong to the account that uploaded them.
 */
export class FileService {
  constructor(
    private readonly deps: {
      files: FileStore;
      blobs: BlobStore;
      checkImage: ImageCheck;
      checkVideo: VideoCheck;
      /** Absent: audio uploads are refused. */
      checkAudio?: AudioCheck;
      clock: () => number;
    },
  ) {}

  async upload(accountId: string, upload: { filename: string; bytes: Buffer; purpose: string }): Promise<FileRecord> {
    if (upload.bytes.length === 0) throw new InvalidRequest('invalid_file', 'The uploaded file is empty.', 'file');
    // Sniffed, never taken from the part's Content-Type or file name. An M4A is an MP4 by its box, audio by its brand.
    const audio = this.deps.checkAudio && sniffAudioType(upload.bytes) !== undefined;
    if (!audio && !isMp4(upload.bytes) && !sniffImageType(upload.bytes)) {
      throw new InvalidRequest(
        'invalid_file',
        '`file` must be a JPEG or PNG image, an MP4 video, or WAV, MP3 or AAC/M4A audio.',
        'file',
      );
    }
    let mimeType: string;
    try {
      ({ mimeType } =
        audio && this.deps.checkAudio
          ? await this.deps.checkAudio(upload.bytes)
          : isMp4(upload.bytes)
            ? await this.deps.checkVideo(upload.bytes)
            : await this.deps.checkImage(upload.bytes));
    } catch (err) {
      throw new InvalidRequest('invalid_file', `\`file\`: ${(err as Error).message}`, 'file');
    }
    const id = newId('file');
    const record: FileRecord = {
      id,
      accountId,
      filename: sanitizeFilename(upload.filename),
      bytes: upload.bytes.length,
      mimeType,
      purpose: upload.purpose,
      blobKey: `files/${id}`,
      createdAt: this.deps.clock(),
    };
    await this.deps.blobs.putBuffer(record.blobKey, upload.bytes, mimeType);
    try {
      await this.deps.files.insert(record);
    } catch (err) {
      // No row, no file: a blob nothing refers to would never be deleted.
      await this.deps.blobs.delete(record.blobKey).catch(() => undefined);
      throw err;
    }
    return record;
  }

  async get(accountId: string, id: string): Promise<FileRecord> {
    const file = await this.deps.files.get(id);
    // An expired file the sweeper has not reached yet is gone already.
    const expired = file?.expiresAt != null && file.expiresAt <= this.deps.clock();
    if (!file || file.accountId !== accountId || expired) throw new NotFound('file', id);
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
