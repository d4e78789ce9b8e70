import {
  MCP_TOOL_ARGS,
  McpVideo,
  McpVideoPage,
  type McpEditVideoArgs,
  type McpGenerateVideoArgs,
  type McpToolName,
  type TSchema,
} from '@vidgen/protocol';
import type { ApiFamily } from '../../domain/task.ts';
import type { SubmitInput, VideoInput } from '../../engine/task-service.ts';
import { InvalidRequest } from '../../errors.ts';
import { inputFieldName, inputRequests } from '../dialects/wire-inputs.ts';
import { familyAInputs } from '../dialects/family-a.ts';
import { openAiVideoIds, sizeOf } from '../dialects/openai-videos.ts';

/** The tools that create a task: each may be called as an MCP task. */
export const CREATE_TOOLS = ['generate_video', 'edit_video', 'extend_video'] as const;
export type CreateTool = (typeof CREATE_TOOLS)[number];

export function isCreateTool(name: string): name is CreateTool {
  return (CREATE_TOOLS as readonly string[]).includes(name);
}

const DESCRIPTIONS: Record<McpToolName, string> = {
  list_models:
    'The video models this account may use: durations, aspect ratios, resolutions, the sizes they make, sound and ' +
    'prices.',
  generate_video:
    'Generate a video from a prompt (and a first frame). Called as a task it answers at once; otherwise it ' +
    'waits a while and answers the finished video, or its id and state for get_video to carry on.',
  edit_video: 'Edit a video (one of this account, or an MP4 at a URL) with a prompt, where the model offers edits.',
  extend_video: 'Extend a video with more seconds following a prompt, where the model offers extensions.',
  get_video: "A video's state; once completed, a signed link to the MP4 and its poster.",
  cancel_video: 'Cancel a queued or running video: it is not charged.',
  list_videos: "This account's videos, newest first, a page at a time.",
};

const OUTPUTS: Partial<Record<McpToolName, TSchema>> = {
  generate_video: McpVideo,
  edit_video: McpVideo,
  extend_video: McpVideo,
  get_video: McpVideo,
  cancel_video: McpVideo,
  list_videos: McpVideoPage,
};

/** Plain JSON Schema: TypeBox marks its schemas with symbols, which no wire carries. */
const jsonSchema = (schema: TSchema) => JSON.parse(JSON.stringify(schema)) as { type: 'object' };

/** What `tools/list` answers, built once. */
export const TOOLS = (Object.keys(MCP_TOOL_ARGS) as McpToolName[]).map((name) => ({
  name,
  description: DESCRIPTIONS[name],
  inputSchema: jsonSchema(MCP_TOOL_ARGS[name]),
  ...(OUTPUTS[name] ? { outputSchema: jsonSchema(OUTPUTS[name]) } : {}),
  ...(isCreateTool(name) ? { execution: { taskSupport: 'optional' as const } } : {}),
}));

/** The MCP names of the fields the engine names in domain words (InvalidField). */
const FIELD_NAMES: Record<string, string> = {
  aspectRatio: 'aspect_ratio',
  resolution: 'size',
  images: 'image',
  'inputs[0]': 'image',
  'inputs[0].url': 'image.url',
  'inputs[0].fileId': 'image.file_id',
  'video.taskId': 'video.id',
  'video.fileId': 'video.id',
  audio: 'generate_audio',
};

export function mcpFieldName(field: string, args: { size?: string } | undefined): string {
  // The ratio came from `size` when only it was given.
  if (field === 'aspectRatio' && args?.size !== undefined) return 'size';
  return inputFieldName(familyAInputs, field, args) ?? FIELD_NAMES[field] ?? field;
}

/**
 * The task id any of vidgen's APIs gave a task: a `video_…` id (OpenAI Videos) or the task's own
 * id (families A and B). Undefined for anything else.
 */
export function taskIdOfAnyDialect(id: string): string | undefined {
  const mapped = openAiVideoIds.toTask(id);
  if (mapped !== undefined) return mapped;
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id) ? id : undefined;
}

/** A tool's arguments in domain words, submitted through the family that serves the model. */
export function toSubmitInput(tool: CreateTool, args: Record<string, unknown>, family: ApiFamily): SubmitInput {
  if (tool === 'generate_video') return generation(args as McpGenerateVideoArgs, family);
  const variant = args as McpEditVideoArgs & { duration?: number };
  return {
    family,
    kind: tool === 'edit_video' ? 'edit' : 'extend',
    model: variant.model,
    prompt: variant.prompt,
    inputs: [],
    video: sourceVideo(variant.video),
    duration: variant.duration,
    audio: variant.generate_audio,
  };
}

function generation(args: McpGenerateVideoArgs, family: ApiFamily): SubmitInput {
  return {
    family,
    kind: 'generate',
    model: args.model,
    prompt: args.prompt,
    // The first frame, last frame, keyframes and reference images under family A's own names and rules.
    inputs: inputRequests(familyAInputs, args as Parameters<typeof familyAInputs.read>[0]),
    duration: args.duration,
    ...frame(args),
    seed: args.seed,
    audio: args.generate_audio,
  };
}

/** `aspect_ratio` and/or `size`: a size sets the ratio and the resolution, and must agree with a ratio given too. */
function frame(args: McpGenerateVideoArgs): { aspectRatio?: string; resolution?: string } {
  if (args.size === undefined) return { aspectRatio: args.aspect_ratio };
  const fromSize = sizeOf(args.size);
  if (args.aspect_ratio !== undefined && args.aspect_ratio !== fromSize.aspectRatio) {
    throw new InvalidRequest(
      'invalid_value',
      `\`size\` ${args.size} is ${fromSize.aspectRatio}, but \`aspect_ratio\` is ${args.aspect_ratio}: give one, ` +
        'or both alike.',
      'size',
    );
  }
  return fromSize;
}

/** `video`: exactly one of `id` (a task of this account, by any API's id) or `url`. */
function sourceVideo(video: { id?: string; url?: string }): VideoInput {
  if ((video.id !== undefined) === (video.url !== undefined)) {
    throw new InvalidRequest('invalid_video', '`video` must have exactly one of `id` or `url`.', 'video');
  }
  if (video.url !== undefined) return { url: video.url };
  const id = video.id as string;
  if (id.startsWith('file-')) return { fileId: id };
  // An id that names no task of any API is an unknown task: the engine answers it as one.
  return { taskId: taskIdOfAnyDialect(id) ?? id };
}
