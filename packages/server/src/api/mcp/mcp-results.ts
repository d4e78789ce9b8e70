import type { CallToolResult, Task as McpTask } from '@modelcontextprotocol/sdk/types.js';
import type { McpVideo, McpVideoStatus } from '@vidgen/protocol';
import { outputSeconds, type Task } from '../../domain/task.ts';
import { toOpenAiVideo } from '../dialects/openai-videos.ts';

/**
 * A task in the OpenAI Videos dialect's words (api/dialects/openai-videos.ts), with the two
 * states that dialect folds into others named as they are: `cancelled` and `expired`.
 */
export function mcpVideo(task: Task, url?: string): McpVideo {
  const video = toOpenAiVideo(task);
  const status: McpVideoStatus =
    task.status === 'canceled' ? 'cancelled' : task.status === 'expired' ? 'expired' : video.status;
  return {
    id: video.id,
    status,
    progress: video.progress,
    model: video.model,
    ...(task.status === 'succeeded' ? { duration: outputSeconds(task) } : {}),
    ...(video.has_audio === undefined ? {} : { has_audio: video.has_audio }),
    ...(video.usage ? { cost_in_usd_ticks: video.usage.cost_in_usd_ticks } : {}),
    ...(url === undefined ? {} : { url }),
    expires_at: video.expires_at,
    error: video.error,
  };
}

/** What a finished video adds to its tool result: the MP4's signed link and the poster's bytes. */
export interface VideoMedia {
  url: string;
  /** WebP, small enough to go inline (at most MAX_POSTER_BYTES); absent when it could not be read. */
  poster?: Buffer;
}

/** The poster goes inline in the tool result: a larger one is left out rather than bloat the agent's context. */
export const MAX_POSTER_BYTES = 64 * 1024;

/**
 * A tool result holding one video: its structured content, the same as JSON text (for clients
 * that read only text), and when completed a link to the MP4 and the poster as an image.
 */
export function videoResult(task: Task, media?: VideoMedia, isError = false): CallToolResult {
  const video = mcpVideo(task, media?.url);
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(video) }];
  if (media) {
    content.push({
      type: 'resource_link',
      uri: media.url,
      name: `${video.id}.mp4`,
      mimeType: 'video/mp4',
      description: 'The video: a signed link that expires (get_video gives a fresh one).',
    });
    if (media.poster) content.push({ type: 'image', data: media.poster.toString('base64'), mimeType: 'image/webp' });
  }
  return { content, structuredContent: video, ...(isError ? { isError: true } : {}) };
}

/** A refusal of a tool call: its message is the HTTP API's, naming the argument. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

const TASK_STATUS: Record<Task['status'], McpTask['status']> = {
  queued: 'working',
  running: 'working',
  succeeded: 'completed',
  expired: 'completed',
  failed: 'failed',
  canceled: 'cancelled',
};

/** A video task as an MCP task: the same `video_…` id, its state in MCP's words. */
export function mcpTask(task: Task, timing: { ttl: number; pollInterval: number }): McpTask {
  const video = mcpVideo(task);
  const message =
    task.error && (task.status === 'failed' || task.status === 'canceled')
      ? task.error.message
      : `${video.status}${task.status === 'running' ? ` (${video.progress}%)` : ''}`;
  return {
    taskId: video.id,
    status: TASK_STATUS[task.status],
    statusMessage: message,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.finishedAt ?? task.startedAt ?? task.createdAt).toISOString(),
    ttl: timing.ttl,
    pollInterval: timing.pollInterval,
  };
}
