import { ErrorCode, McpError, type CallToolResult, type Task as McpTask } from '@modelcontextprotocol/sdk/types.js';
import { MCP_TOOL_ARGS, type ModelObject, type TSchema } from '@vidgen/protocol';
import { FINISHED_STATUSES, type Task } from '../../domain/task.ts';
import type { TaskService } from '../../engine/task-service.ts';
import type { TaskWatch } from '../../engine/task-watch.ts';
import type { BlobStore } from '../../blobs/blob-store.ts';
import { variantKey } from '../../engine/video-variants.ts';
import { outputSize, shortSideOf } from '../../catalog/model-catalog.ts';
import { sizeOf } from '../dialects/openai-videos.ts';
import { ApiError, InvalidField } from '../../errors.ts';
import type { Account } from '../../store/account-store.ts';
import type { Caller } from '../authenticate.ts';
import type { Dialect } from '../dialects/dialect.ts';
import { idempotencyFor } from '../request-options.ts';
import { isCreateTool, mcpFieldName, taskIdOfAnyDialect, toSubmitInput, type CreateTool } from './mcp-tools.ts';
import { MAX_POSTER_BYTES, mcpTask, mcpVideo, toolError, videoResult } from './mcp-results.ts';
import { waitForTask } from './wait-for-task.ts';

/** The service behind `/mcp`, shared by every request of the process. */
export interface McpDeps {
  tasks: TaskService;
  watch: TaskWatch;
  blobs: BlobStore;
  dialects: readonly Dialect[];
  /** The caller's models as GET /v1/models lists them (api/models/routes.ts). */
  models(account: Account): Promise<ModelObject[]>;
  /** How long a create called without the task capability waits for the video (VIDGEN_MCP_WAIT_SECONDS). */
  waitMs: number;
  /** How long a finished task's video is kept: the longest `ttl` an MCP task is given. */
  retentionMs: number;
}

/** What one HTTP request brings: who calls, and how links and checks are made for it. */
export interface McpRequest {
  caller: Caller;
  signedLink(task: Task, variant?: 'thumbnail'): string;
  /** The first violation of the schema, as the API words it (api/error-handler.ts); undefined when none. */
  check(schema: TSchema, value: unknown): ApiError | undefined;
}

/** What the SDK gives a handler: the request's abort signal, its `_meta`, and its response stream. */
export interface HandlerExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
}

/** The smallest interval an MCP task is polled at: fewer polls than a video's progress steps. */
const MIN_POLL_MS = 2000;
const PAGE_SIZE = 20;

/**
 * The tools and task calls of one request, on the task service: every rule, limit, price and
 * ledger entry is the HTTP API's, and MCP tasks are the task rows themselves (so any process
 * answers for any task; docs/mcp.md).
 */
export class McpCalls {
  constructor(
    private readonly deps: McpDeps,
    private readonly request: McpRequest,
  ) {}

  private get accountId(): string {
    return this.request.caller.account.id;
  }

  async callTool(
    name: string,
    raw: Record<string, unknown> | undefined,
    extra: HandlerExtra,
    asTask?: { ttl?: number },
  ): Promise<CallToolResult | { task: McpTask }> {
    const schema = (MCP_TOOL_ARGS as Record<string, TSchema>)[name];
    if (!Object.hasOwn(MCP_TOOL_ARGS, name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    if (asTask && !isCreateTool(name))
      throw new McpError(ErrorCode.MethodNotFound, `Tool ${name} cannot be called as a task.`);
    const args = raw ?? {};
    try {
      const refusal = this.request.check(schema, args);
      if (refusal) throw refusal;
      if (isCreateTool(name)) return await this.create(name, args, extra, asTask);
      return await this.read(name, args);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      const named = err instanceof InvalidField ? err.named(mcpFieldName(err.field, args)) : err;
      // A task that was never created has no task to answer with: its refusal is the call's error.
      if (asTask) throw new McpError(ErrorCode.InvalidParams, named.message);
      return toolError(named.message);
    }
  }

  private async read(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const account = this.request.caller.account;
    switch (name) {
      case 'list_models': {
        const models = (await this.deps.models(account)).map((model) => ({ ...model, sizes: sizesOf(model) }));
        return { content: [{ type: 'text', text: JSON.stringify({ models }) }], structuredContent: { models } };
      }
      case 'get_video':
        return this.videoAnswer(await this.deps.tasks.get(this.accountId, wireTaskId(args.id as string)));
      case 'cancel_video':
        return this.videoAnswer(await this.deps.tasks.cancel(this.accountId, wireTaskId(args.id as string)));
      default: {
        const page = await this.page(args.after as string | undefined);
        const videos = page.tasks.map((task) => mcpVideo(task));
        const listing = {
          videos,
          has_more: page.hasMore,
          next_after: page.hasMore ? (videos.at(-1)?.id ?? null) : null,
        };
        return { content: [{ type: 'text', text: JSON.stringify(listing) }], structuredContent: listing };
      }
    }
  }

  /**
   * A create. As a task it answers at once; otherwise it waits up to the configured time,
   * telling the caller of each change, and answers the finished video or where it stands.
   */
  private async create(
    tool: CreateTool,
    args: Record<string, unknown>,
    extra: HandlerExtra,
    asTask?: { ttl?: number },
  ): Promise<CallToolResult | { task: McpTask }> {
    const { account, keyId } = this.request.caller;
    // An unknown model goes to the engine as any family's: it refuses it, naming the model.
    const family = this.deps.tasks.familyOf(account, String(args.model)) ?? 'O';
    const input = toSubmitInput(tool, args, family);
    const { idempotency_key: key, ...rest } = args;
    // The fingerprint is of the tool and its arguments, as the API's is of the route and its body (invariant 2).
    const idempotency =
      key === undefined ? undefined : idempotencyFor(String(key), `mcp:${tool}`, rest, 'idempotency_key');
    const { task } = await this.deps.tasks.submit(account, input, idempotency, keyId);
    if (asTask) return { task: mcpTask(task, this.timing(task, asTask.ttl)) };
    const token = extra._meta?.progressToken;
    const latest = await waitForTask(this.deps.watch, task, this.deps.waitMs, extra.signal, (next) => {
      if (token === undefined) return;
      const message = mcpVideo(next).status;
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: next.progress, total: 100, message },
        })
        .catch(() => undefined);
    });
    return this.videoAnswer(latest, latest.status === 'failed' || latest.status === 'canceled');
  }

  async getTask(id: string): Promise<McpTask> {
    const task = await this.taskOf(id);
    return mcpTask(task, this.timing(task));
  }

  /** `tasks/result`: the tool's result once the task has ended, its changes sent as they happen meanwhile. */
  async taskResult(id: string, extra: HandlerExtra): Promise<CallToolResult> {
    const task = await this.taskOf(id);
    const latest = await waitForTask(this.deps.watch, task, Number.POSITIVE_INFINITY, extra.signal, (next) => {
      void extra
        .sendNotification({ method: 'notifications/tasks/status', params: mcpTask(next, this.timing(next)) })
        .catch(() => undefined);
    });
    if (!FINISHED_STATUSES.includes(latest.status)) throw new McpError(ErrorCode.ConnectionClosed, 'Request cancelled');
    return this.videoAnswer(latest, latest.status === 'failed' || latest.status === 'canceled');
  }

  async listTasks(cursor: string | undefined): Promise<{ tasks: McpTask[]; nextCursor?: string }> {
    const page = await this.page(cursor);
    const tasks = page.tasks.map((task) => mcpTask(task, this.timing(task)));
    return page.hasMore ? { tasks, nextCursor: tasks.at(-1)?.taskId } : { tasks };
  }

  /** `tasks/cancel`, under the API's rules: a task that has ended is refused, a canceled one not charged. */
  async cancelTask(id: string): Promise<McpTask> {
    await this.taskOf(id);
    try {
      const task = await this.deps.tasks.cancel(this.accountId, wireTaskId(id));
      return mcpTask(task, this.timing(task));
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) throw new McpError(ErrorCode.InvalidParams, err.message);
      throw err;
    }
  }

  /** A task of this account for the task calls; any other id is the protocol's "not found". */
  private async taskOf(id: string): Promise<Task> {
    try {
      return await this.deps.tasks.get(this.accountId, wireTaskId(id));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404)
        throw new McpError(ErrorCode.InvalidParams, `Task not found: ${id}`);
      throw err;
    }
  }

  private page(after: string | undefined) {
    const from = after === undefined ? undefined : wireTaskId(after);
    return this.deps.tasks.list(this.accountId, undefined, { limit: PAGE_SIZE, after: from || undefined });
  }

  /**
   * `pollInterval`: the dialect's own poll hint for the model's tasks when longer than the
   * floor; `ttl`: what was asked, never past retention.
   */
  private timing(task: Task, asked?: number): { ttl: number; pollInterval: number } {
    const hint = this.deps.dialects.find((d) => d.family === task.family)?.pollStatus(task).retryAfterSeconds ?? 0;
    const ttl = Math.min(asked ?? this.deps.retentionMs, this.deps.retentionMs);
    return { ttl, pollInterval: Math.max(MIN_POLL_MS, hint * 1000) };
  }

  private async videoAnswer(task: Task, isError = false): Promise<CallToolResult> {
    if (task.status !== 'succeeded' || !task.result) return videoResult(task, undefined, isError);
    return videoResult(task, { url: this.request.signedLink(task), poster: await this.poster(task.result.blobKey) });
  }

  /** The poster's bytes when it was made and is small enough to go inline (engine/video-variants.ts). */
  private async poster(videoKey: string): Promise<Buffer | undefined> {
    try {
      const bytes = await this.deps.blobs.readBuffer(variantKey(videoKey, 'thumbnail'));
      return bytes.length <= MAX_POSTER_BYTES ? bytes : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * The `size` values a model takes: each resolution at each aspect ratio, where the size names that
 * ratio exactly (854x480 is not 16:9 in lowest terms, so it is not offered).
 */
function sizesOf(model: ModelObject): string[] {
  const resolutions = model.resolutions.length > 0 ? model.resolutions : [model.resolution];
  return resolutions.flatMap((resolution) =>
    model.aspect_ratios.flatMap((ratio) => {
      const { width, height } = outputSize(shortSideOf(resolution) ?? 0, ratio);
      const size = `${width}x${height}`;
      const named = sizeOf(size);
      return named.aspectRatio === ratio && named.resolution === resolution ? [size] : [];
    }),
  );
}

/** The task an id of any of vidgen's APIs names; an id of none names no task (the 404 of an unknown one). */
function wireTaskId(id: string): string {
  return taskIdOfAnyDialect(id) ?? '';
}
