import { Page } from '../core/page.ts';
import { FAMILY_PATHS, taskPath } from '../wait/task-view.ts';
import type { WaitOptions } from '../wait/wait-for.ts';
import { streamTask, type TaskStreamEvent, type TaskStreamOptions } from '../wait/task-stream.ts';
import type {
  CreateOptions,
  FamilyACreateBody,
  FamilyACreateResponse,
  FamilyAEditBody,
  FamilyAExtensionBody,
  FamilyATask,
  ListParams,
  ListResponse,
  Listed,
  RequestOptions,
} from '../types.ts';
import type { ClientCore } from './client-core.ts';

export interface RetrieveOptions extends RequestOptions {
  /** Long-poll: let the server hold the answer up to this many seconds (at most 60) while the task is unfinished. */
  wait?: number;
}

/** Family A (`/v1/videos/*`, identified by `request_id`). */
export class Videos {
  readonly edits: { create(body: FamilyAEditBody, opts?: CreateOptions): Promise<FamilyACreateResponse> };
  readonly extensions: { create(body: FamilyAExtensionBody, opts?: CreateOptions): Promise<FamilyACreateResponse> };

  constructor(private readonly core: ClientCore) {
    // Only models that /v1/models offers for edits or extensions are accepted by the server (spec 4.3).
    this.edits = { create: (body, opts) => this.create('edit', '/v1/videos/edits', body, opts) };
    this.extensions = { create: (body, opts) => this.create('extension', '/v1/videos/extensions', body, opts) };
  }

  /** Submits an image-to-video generation; answers `{request_id}` at once. */
  generate(body: FamilyACreateBody, opts?: CreateOptions): Promise<FamilyACreateResponse> {
    return this.create('generate', FAMILY_PATHS.A.create, body, opts);
  }

  /** The task as it stands (a pending task is answered with HTTP 202 and a body, which is not an error). */
  async retrieve(id: string, opts: RetrieveOptions = {}): Promise<FamilyATask> {
    const wait = opts.wait ? Math.min(60, Math.max(0, Math.floor(opts.wait))) : undefined;
    const timeout = (opts.timeout ?? this.core.transport.options.timeout) + (wait ?? 0) * 1000;
    const { data } = await this.core.transport.request<FamilyATask>({
      method: 'GET',
      path: taskPath('A', id),
      query: { wait },
      ...opts,
      timeout,
    });
    return data;
  }

  /**
   * Cancels a queued or running task: it ends `failed` with error code `canceled` (ConflictError once it has ended).
   */
  async cancel(id: string, opts: RequestOptions = {}): Promise<FamilyATask> {
    const { data } = await this.core.transport.request<FamilyATask>({
      method: 'POST',
      path: `${taskPath('A', id)}/cancel`,
      maxRetries: 0,
      ...opts,
    });
    return data;
  }

  /** Newest first; `for await` over the page walks every page. */
  async list(params: ListParams = {}, opts: RequestOptions = {}): Promise<Page<Listed<FamilyATask>>> {
    const { data } = await this.core.transport.request<ListResponse<Listed<FamilyATask>>>({
      method: 'GET',
      path: FAMILY_PATHS.A.list,
      query: { ...params },
      ...opts,
    });
    return new Page(data, (after) => this.list({ ...params, after }, opts));
  }

  /**
   * The task's states as they happen (`for await (const { id, task } of client.videos.stream(requestId))`),
   * from its event stream, ending after the final one; reconnects with the last id, so nothing comes
   * twice. StreamNotOfferedError where the server has no streams (docs/streams.md).
   */
  stream(id: string, opts?: TaskStreamOptions): AsyncGenerator<TaskStreamEvent<FamilyATask>> {
    return streamTask(this.core.transport, 'A', id, opts);
  }

  /**
   * Follows the task to its end, by its event stream where the server has one, else by polling:
   * resolves when done, throws TaskFailedError when failed, ResultExpiredError when expired.
   */
  wait(id: string, opts: Omit<WaitOptions<'A'>, 'family'> = {}): Promise<FamilyATask> {
    return this.core.waitFor(id, { ...opts, family: 'A' });
  }

  private async create(
    kind: 'generate' | 'edit' | 'extension',
    path: string,
    body: FamilyACreateBody | FamilyAEditBody | FamilyAExtensionBody,
    opts?: CreateOptions,
  ) {
    const created = await this.core.submit<FamilyACreateResponse>({ family: 'A', kind, path, body, options: opts });
    return created.data;
  }
}
