/**
 * Where a finished video goes besides vidgen's own store (docs/storage.md): a PUT to the caller's
 * signed URL, and/or a file among the account's own files. Asked at submit (`TaskParams.delivery`);
 * what became of it is recorded with the result, in the completing statement.
 */
export interface DeliveryRequest {
  /** The caller's signed PUT target; never logged, since its query holds the signature. */
  uploadUrl?: string;
  /** Keep the video among the account's files as well. */
  file?: {
    filename: string;
    /** Seconds the file is kept after the task finishes; absent: until deleted. */
    expiresAfterSeconds?: number;
    /** A signed link to the file that needs no key; `expiresAfterSeconds` absent: the signer's default. */
    publicUrl?: { expiresAfterSeconds?: number };
  };
  /**
   * The account had zero retention when the task was submitted: once the upload succeeds the video
   * is not kept here.
   */
  zeroRetention?: true;
}

export interface DeliveryOutcome {
  /** The PUT to `uploadUrl` was answered 2xx. */
  uploaded?: true;
  /** The file made for `DeliveryRequest.file`. */
  file?: { fileId: string; filename: string; expiresAt: number | null };
  /** Why the upload (or the file) failed, in words safe to show the caller; the video stays here. */
  storageError?: string;
  /**
   * Zero retention: the upload succeeded, so the video, its stills and its inputs were removed from
   * vidgen's store; the content routes say it was delivered to the caller's storage.
   */
  removed?: true;
}
