export interface FileRecord {
  id: string;
  accountId: string;
  filename: string;
  bytes: number;
  mimeType: string;
  purpose: string;
  blobKey: string;
  createdAt: number;
}

/** Metadata of uploaded files; the bytes live in the blob store under `blobKey`. */
export interface FileStore {
  insert(file: FileRecord): Promise<void>;
  get(id: string): Promise<FileRecord | undefined>;
  delete(id: string): Promise<boolean>;
}
