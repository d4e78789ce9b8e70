/** The engine's view of a task. Dialects map it to their own words; the engine never knows which one created it. */
export type TaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled' | 'expired';
export const FINISHED_STATUSES: readonly TaskStatus[] = ['succeeded', 'failed', 'canceled', 'expired'];

export type ApiFamily = 'A' | 'B';
export type TaskKind = 'generate' | 'edit' | 'extend';

/** Where an input image comes from. Inline data URIs are stored as blobs at submit. */
export type ImageRef =
  | { kind: 'url'; url: string }
  | { kind: 'file'; fileId: string }
  | { kind: 'blob'; key: string };

export interface TaskParams {
  prompt: string;
  images: ImageRef[];
  /** Seconds of output. */
  duration: number;
  aspectRatio: string;
  width: number;
  height: number;
  fps: number;
  seed?: number;
}

export interface TaskResult {
  blobKey: string;
  bytes: number;
  etag: string;
}

export interface TaskErrorInfo {
  code: string;
  message: string;
}

export interface Task {
  id: string;
  accountId: string;
  family: ApiFamily;
  kind: TaskKind;
  model: string;
  backend: string;
  status: TaskStatus;
  progress: number;
  params: TaskParams;
  error: TaskErrorInfo | null;
  result: TaskResult | null;
  attempts: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** When a succeeded task's result is deleted and the task becomes expired. */
  expiresAt: number | null;
  /** The Idempotency-Key the task was created with, if any. */
  idempotencyKey: string | null;
}

/** What a worker holds while it runs a task: every write it makes must present the token. */
export interface Lease {
  taskId: string;
  owner: string;
  token: number;
  expiresAt: number;
}
