import type { FileRecord, FileStore } from '../store/file-store.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import { ApiError, InvalidRequest, NotFound } from '../errors.ts';
import { isMp4 } from '../media/video-input.ts';
import { sniffImageType } from '../media/image-input.ts';
import { sniffAudioType } from '../media/audio-input.ts';
import { newId } from '../domain/ids.ts';
import { createWriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BATCH_FILE_MAX_BYTES, BATCH_FILE_MAX_LINES, readJsonl } from './jsonl-file.ts';

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
      /** Where uploads are written while they arrive (on the disk, never in memory whole). */
      stagingDir?: string;
      /** The largest image or video upload (a batch's JSONL may be larger: BATCH_FILE_MAX_BYTES). */
      maxUploadBytes?: number;
    },
  ) {}

  /**
   * Writes an arriving upload to a staging file as it comes, whatever its purpose (a multipart
   * form may name the purpose after the file). `truncated()` tells a file cut at the size limit.
   */
  async stage(source: Readable, truncated: () => boolean): Promise<Staged> {
    if (!this.deps.stagingDir) throw new Error('FileService: no staging directory');
    const path = join(this.deps.stagingDir, `${newId('upload')}.part`);
    let bytes = 0;
    const counted = async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        bytes += chunk.length;
        yield chunk;
      }
    };
    try {
      await pipeline(source, counted, createWriteStream(path));
    } catch (err) {
      await rm(path, { force: true });
      throw err;
    }
    if (truncated()) {
      await rm(path, { force: true });
      throw new PayloadTooLarge();
    }
    return { path, bytes };
  }

  /**
   * Stores a staged upload: a batch's input (`purpose: "batch"`) as JSONL, read a line at a time
   * and kept on the disk until it is stored; anything else as an image or a video, as `upload`.
   * The staging file is removed either way.
   */
  async uploadStaged(accountId: string, staged: Staged & { filename: string; purpose: string }): Promise<FileRecord> {
    try {
      if (staged.purpose !== 'batch') {
        if (staged.bytes > (this.deps.maxUploadBytes ?? Number.POSITIVE_INFINITY)) throw new PayloadTooLarge();
        return await this.upload(accountId, { ...staged, bytes: await readFile(staged.path) });
      }
      if (staged.bytes === 0) throw new InvalidRequest('invalid_file', 'The uploaded file is empty.', 'file');
      if (staged.bytes > BATCH_FILE_MAX_BYTES) throw new PayloadTooLarge();
      const lines = await readJsonl(staged.path, BATCH_FILE_MAX_LINES);
      if (lines === 0) throw new InvalidRequest('invalid_file', 'The batch file has no lines.', 'file');
      return await this.store(accountId, {
        filename: staged.filename,
        path: staged.path,
        bytes: staged.bytes,
        purpose: 'batch',
        mimeType: 'application/jsonl',
        lines,
      });
    } finally {
      await rm(staged.path, { force: true });
    }
  }

  /** Stores a file written on the disk as the account's (a batch's input, output or error file). */
  async store(
    accountId: string,
    file: { filename: string; path: string; bytes: number; purpose: string; mimeType: string; lines?: number },
    expiresAt: number | null = null,
  ): Promise<FileRecord> {
    const id = newId('file');
    const record: FileRecord = {
      id,
      accountId,
      filename: sanitizeFilename(file.filename),
      bytes: file.bytes,
      mimeType: file.mimeType,
      purpose: file.purpose,
      blobKey: `files/${id}`,
      createdAt: this.deps.clock(),
      expiresAt,
      ...(file.lines === undefined ? {} : { lines: file.lines }),
    };
    await this.deps.blobs.putFile(record.blobKey, file.path, file.mimeType);
    return this.insertOrDiscard(record);
  }

  private async insertOrDiscard(record: FileRecord): Promise<FileRecord> {
    try {
      await this.deps.files.insert(record);
    } catch (err) {
      // No row, no file: a blob nothing refers to would never be deleted.
      await this.deps.blobs.delete(record.blobKey).catch(() => undefined);
      throw err;
    }
    return record;
  }

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
    return this.insertOrDiscard(record);
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

/** An upload written to the staging directory. */
export interface Staged {
  path: string;
  bytes: number;
}

/** An upload over the limit of its purpose. */
export class PayloadTooLarge extends ApiError {
  constructor() {
    super(
      413,
      'invalid_request_error',
      'body_too_large',
      'The uploaded file is larger than this server accepts.',
      'file',
    );
  }
}

function sanitizeFilename(name: string): string {
  const cleaned = name.replace(/[^\w.\- ]+/g, '_').slice(0, 200);
  return cleaned || 'upload';
}
