import { Page } from '../core/page.ts';
import { FAMILY_PATHS, taskPath } from '../wait/task-view.ts';
import type { WaitOptions } from '../wait/wait-for.ts';
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

  /** Polls until SUCCESS (resolves) or FAILURE (TaskFailedError); an expired SUCCESS raises ResultExpiredError. */
  wait(id: string, opts: Omit<WaitOptions<'B'>, 'family'> = {}): Promise<FamilyBTaskObject> {
    return this.core.waitFor(id, { ...opts, family: 'B' });
  }
}
