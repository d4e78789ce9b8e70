import { VidgenClient, type ClientOptions } from '../vidgen-client.ts';
import type { ResumeOptions, ResumeResult } from '../journal/resume-journal.ts';
import type { FamilyATask, FamilyBTaskObject } from '../types.ts';
import { FileJournal } from './file-journal.ts';
import { downloadPathOf } from '../journal/task-journal.ts';
import { downloadVideo, type DownloadOptions, type DownloadResult, type DownloadTarget } from './download-video.ts';

export interface NodeClientOptions extends ClientOptions {
  /** Keep a durable journal of submits in this directory (ignored when `journal` is given). */
  journalDir?: string;
}

export interface NodeResumeOptions extends ResumeOptions {
  /** Download finished results to the path their entry names. Default true. */
  download?: boolean;
  downloadTimeoutMs?: number;
  onDownloadProgress?: (received: number, total: number | undefined) => void;
}

/**
 * The client with the Node-only parts: a file journal, downloads to files, and resume that downloads.
 * Like the `vidgen` CLI, it takes the key and server from VIDGEN_API_KEY and VIDGEN_BASE_URL when the
 * options do not name them (as the openai SDK reads OPENAI_API_KEY), and refuses to start without a
 * key: a local error, not a 401 from the server. `apiKey: ''` asks for no key on purpose.
 */
export class NodeVidgenClient extends VidgenClient {
  constructor(options: NodeClientOptions = {}) {
    const apiKey = options.apiKey ?? process.env.VIDGEN_API_KEY;
    if (apiKey === undefined)
      throw new Error(
        'No API key: pass `apiKey` to NodeVidgenClient or set VIDGEN_API_KEY (`vidgen-server keys create` makes one).',
      );
    super({
      ...options,
      apiKey,
      baseURL: options.baseURL ?? (process.env.VIDGEN_BASE_URL || undefined),
      journal: options.journal ?? (options.journalDir ? new FileJournal(options.journalDir) : undefined),
    });
  }

  /** Downloads a finished task's video to `opts.path`, checked and atomic; marks its journal entry downloaded. */
  async download(target: DownloadTarget, opts: DownloadOptions): Promise<DownloadResult> {
    const result = await downloadVideo(this, target, opts);
    const entry = (await this.journalEntries()).find((e) => e.taskId === result.taskId);
    if (entry)
      await this.journal!.update(entry.idempotencyKey, {
        state: 'downloaded',
        downloadedTo: result.path,
        updatedAt: Date.now(),
      });
    return result;
  }

  override resume(opts: NodeResumeOptions = {}): Promise<ResumeResult[]> {
    if (opts.download === false) return super.resume(opts);
    return super.resume({
      ...opts,
      onSucceeded: async (entry, task) => {
        const target =
          entry.family === 'A'
            ? { family: 'A' as const, task: task as FamilyATask }
            : { family: 'B' as const, task: task as FamilyBTaskObject };
        const result = await this.download(target, {
          path: downloadPathOf(entry) ?? entry.downloadTo!,
          timeoutMs: opts.downloadTimeoutMs,
          signal: opts.signal,
          onProgress: opts.onDownloadProgress,
        });
        return result.path;
      },
    });
  }
}
