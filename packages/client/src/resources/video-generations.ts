import { Page } from '../core/page.ts';
import { FAMILY_PATHS, taskPath } from '../wait/task-view.ts';
import type { WaitOptions } from '../wait/wait-for.ts';
import { streamTask, type TaskStreamEvent, type TaskStreamOptions } from '../wait/task-stream.ts';
import type {
  CreateOptions,
  FamilyBCreateBody,
  FamilyBCreateResponse,
  FamilyBTaskObject,
  ListParams,
  ListResponse,
  Listed,
  RequestOptions,
} from '../types.ts';
import type { ClientCore } from './client-core.ts';
import type { RetrieveOptions } from './videos.ts';

/** Family B (`/v1/video/generations`, identified by `task_id`). */
export class VideoGenerations {
  constructor(private readonly core: ClientCore) {}

  /**
   * Cancels a queued or running task: it ends `FAILURE` with error code `canceled` (ConflictError once it has ended).
   */
  async cancel(id: string, opts: RequestOptions = {}): Promise<FamilyBTaskObject> {
    const { data } = await this.core.transport.request<FamilyBTaskObject>({
      method: 'POST',
      path: `${taskPath('B', id)}/cancel`,
      maxRetries: 0,
      ...opts,
    });
    return data;
  }

  /**
   * Submits text-to-video (prompt only) or image-to-video (`image` or `images`); answers `{task_id, status, seconds}`.
   */
  async create(body: FamilyBCreateBody, opts?: CreateOptions): Promise<FamilyBCreateResponse> {
    const created = await this.core.submit<FamilyBCreateResponse>({
      family: 'B',
      kind: 'generate',
      path: FAMILY_PATHS.B.create,
      body,
      options: opts,
    });
    return created.data;
  }

  async retrieve(id: string, opts: RetrieveOptions = {}): Promise<FamilyBTaskObject> {
    const wait = opts.wait ? Math.min(60, Math.max(0, Math.floor(opts.wait))) : undefined;
    const timeout = (opts.timeout ?? this.core.transport.options.timeout) + (wait ?? 0) * 1000;
    const { data } = await this.core.transport.request<FamilyBTaskObject>({
      method: 'GET',
      path: taskPath('B', id),
      query: { wait },
      ...opts,
      timeout,
    });
    return data;
  }

  async list(params: ListParams = {}, opts: RequestOptions = {}): Promise<Page<Listed<FamilyBTaskObject>>> {
    const { data } = await this.core.transport.request<ListResponse<Listed<FamilyBTaskObject>>>({
      method: 'GET',
      path: FAMILY_PATHS.B.list,
      query: { ...params },
      ...opts,
    });
    return new Page(data, (after) => this.list({ ...params, after }, opts));
  }

  /**
   * The task's states as they happen, from its event stream, ending after the final one; reconnects
   * with the last id. StreamNotOfferedError where the server has no streams (docs/streams.md).
   */
  stream(id: string, opts?: TaskStreamOptions): AsyncGenerator<TaskStreamEvent<FamilyBTaskObject>> {
    return streamTask(this.core.transport, 'B', id, opts);
  }

  /**
   * Follows the task to its end, by its event stream where the server has one, else by polling:
   * resolves at SUCCESS, throws TaskFailedError at FAILURE; an expired SUCCESS raises ResultExpiredError.
   */
  wait(id: string, opts: Omit<WaitOptions<'B'>, 'family'> = {}): Promise<FamilyBTaskObject> {
    return this.core.waitFor(id, { ...opts, family: 'B' });
  }
}
