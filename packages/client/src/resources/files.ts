import { newIdempotencyKey } from '../core/fingerprint.ts';
import type { FileDeleted, FileObject, RequestOptions } from '../types.ts';
import type { ClientCore } from './client-core.ts';

export interface FileCreateParams {
  file: Blob | Uint8Array | ArrayBuffer;
  /** Needed when `file` is not a File. */
  filename?: string;
  /** Default `vision`. */
  purpose?: string;
}

/** OpenAI-style uploads: first frames for family A (`image: {file_id}`). */
export class Files {
  constructor(private readonly core: ClientCore) {}

  async create(params: FileCreateParams, opts: RequestOptions = {}): Promise<FileObject> {
    const form = new FormData();
    form.set('purpose', params.purpose ?? 'vision');
    const blob = params.file instanceof Blob ? params.file : new Blob([params.file as BlobPart]);
    const name =
      params.filename ?? (typeof File !== 'undefined' && params.file instanceof File ? params.file.name : 'upload');
    form.set('file', blob, name);
    // An upload charges nothing, so it retries normally; the key still lets a server drop duplicates.
    const headers = { 'idempotency-key': newIdempotencyKey(), ...opts.headers };
    return (
      await this.core.transport.request<FileObject>({ method: 'POST', path: '/v1/files', body: form, ...opts, headers })
    ).data;
  }

  async retrieve(id: string, opts: RequestOptions = {}): Promise<FileObject> {
    return (
      await this.core.transport.request<FileObject>({
        method: 'GET',
        path: `/v1/files/${encodeURIComponent(id)}`,
        ...opts,
      })
    ).data;
  }

  async delete(id: string, opts: RequestOptions = {}): Promise<FileDeleted> {
    return (
      await this.core.transport.request<FileDeleted>({
        method: 'DELETE',
        path: `/v1/files/${encodeURIComponent(id)}`,
        ...opts,
      })
    ).data;
  }
}
