export interface FileRecord {
  id: string;
  accountId: string;
  filename: string;
  bytes: number;
  mimeType: string;
  purpose: string;
  blobKey: string;
  createdAt: number;
  /** When the file is deleted (epoch ms); absent or null: kept until its owner deletes it. */
  expiresAt?: number | null;
  /** Lines of a JSONL file (a batch's input, output or error file); absent for other files. */
  lines?: number;
}

/** Metadata of uploaded files; the bytes live in the blob store under `blobKey`. */
export interface FileStore {
  insert(file: FileRecord): Promise<void>;
  get(id: string): Promise<FileRecord | undefined>;
  delete(id: string): Promise<boolean>;
  /** Sets when these files are deleted (a batch's, some days after it ends). */
  expireAt(ids: readonly string[], at: number): Promise<void>;
  /** Up to `limit` files whose expiry is at or before `now`, oldest expiry first. */
  due(now: number, limit: number): Promise<FileRecord[]>;
}
