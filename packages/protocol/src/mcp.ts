import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { FamilyACreateBody, FamilyAExtensionBody, FamilyAVideoInput } from './family-a.ts';
import { OpenAiVideo, OpenAiVideoCreateBody, OpenAiVideoListQuery, OpenAiVideoReference } from './openai-videos.ts';
import { TaskUsage } from './common.ts';

/**
 * The tools of the MCP endpoint (`/mcp`). Every argument is a field of a dialect's own schema,
 * taken as it is (only its description may be reworded for an agent), so a tool cannot accept
 * what the HTTP API refuses or refuse what it accepts: `MCP_FIELD_SOURCES` says where each comes
 * from, and a test holds the two together.
 */

const A = FamilyACreateBody.properties;
const O = OpenAiVideoCreateBody.properties;

/** A dialect's field with the description an agent reads; its type and constraints unchanged. */
function reworded<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description } as T;
}

/** `Idempotency-Key` of every create, as a header (HTTP) or the `idempotency_key` argument (MCP). */
export const IdempotencyKeyValue = Type.String({
  description:
    'Same key and body replay the first answer (`Idempotent-Replayed: true`); another body is 422; still in ' +
    'flight is 409. 1–255 visible ASCII characters.',
});

const idempotencyKey = Type.Optional(
  reworded(IdempotencyKeyValue, 'Retries with the same key and arguments return the same video, charged once.'),
);
const videoId = reworded(
  OpenAiVideo.properties.id,
  'The `video_…` id generate_video gave, or the id another vidgen API gave the same task.',
);

export const McpGenerateVideoArgs = Type.Object({
  prompt: A.prompt,
  model: reworded(A.model, 'A model id from list_models.'),
  duration: Type.Optional(reworded(A.duration, "Seconds; one of the model's `durations` (default: its first).")),
  aspect_ratio: A.aspect_ratio,
  size: Type.Optional(reworded(O.size, 'Width x height in pixels (`1280x720`); its ratio must match `aspect_ratio`.')),
  image: A.image,
  last_frame: A.last_frame,
  keyframes: A.keyframes,
  reference_images: A.reference_images,
  generate_audio: A.generate_audio,
  seed: A.seed,
  idempotency_key: idempotencyKey,
});
export type McpGenerateVideoArgs = Static<typeof McpGenerateVideoArgs>;

/** The source of an edit or an extension: one of the account's videos, or an MP4 at a URL. */
export const McpSourceVideo = Type.Object(
  {
    id: Type.Optional(reworded(OpenAiVideoReference.properties.id, 'A completed video of this account.')),
    url: FamilyAVideoInput.properties.url,
  },
  { description: 'Exactly one of `id` (a completed video of this account) or `url` (an http(s) MP4).' },
);

export const McpEditVideoArgs = Type.Object({
  prompt: A.prompt,
  model: reworded(A.model, 'A model id from list_models that offers edits.'),
  video: McpSourceVideo,
  generate_audio: A.generate_audio,
  idempotency_key: idempotencyKey,
});
export type McpEditVideoArgs = Static<typeof McpEditVideoArgs>;

export const McpExtendVideoArgs = Type.Object({
  prompt: A.prompt,
  model: reworded(A.model, 'A model id from list_models that offers extensions.'),
  video: McpSourceVideo,
  duration: FamilyAExtensionBody.properties.duration,
  generate_audio: A.generate_audio,
  idempotency_key: idempotencyKey,
});
export type McpExtendVideoArgs = Static<typeof McpExtendVideoArgs>;

export const McpVideoIdArgs = Type.Object({ id: videoId });
export type McpVideoIdArgs = Static<typeof McpVideoIdArgs>;

export const McpListVideosArgs = Type.Object({
  after: Type.Optional(reworded(OpenAiVideoListQuery.properties.after, 'The `next_after` of the previous page.')),
});
export type McpListVideosArgs = Static<typeof McpListVideosArgs>;

export const McpListModelsArgs = Type.Object({});

/** OpenAI Videos' status words, and the two it folds into others (`cancelled`, `expired`). */
export const MCP_VIDEO_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'expired'] as const;
export type McpVideoStatus = (typeof MCP_VIDEO_STATUSES)[number];

/** The structured content of every tool that answers with a video. */
export const McpVideo = Type.Object({
  id: OpenAiVideo.properties.id,
  status: Type.Union(MCP_VIDEO_STATUSES.map((s) => Type.Literal(s))),
  progress: OpenAiVideo.properties.progress,
  model: OpenAiVideo.properties.model,
  duration: Type.Optional(Type.Number({ description: 'Seconds of the finished video.' })),
  has_audio: OpenAiVideo.properties.has_audio,
  cost_in_usd_ticks: Type.Optional(TaskUsage.properties.cost_in_usd_ticks),
  url: Type.Optional(Type.String({ description: 'Signed, expiring link to the MP4 (no key needed).' })),
  expires_at: OpenAiVideo.properties.expires_at,
  error: OpenAiVideo.properties.error,
});
export type McpVideo = Static<typeof McpVideo>;

export const McpVideoPage = Type.Object({
  videos: Type.Array(McpVideo),
  has_more: Type.Boolean(),
  next_after: Type.Union([Type.String(), Type.Null()]),
});
export type McpVideoPage = Static<typeof McpVideoPage>;

const headers = Type.Object({ 'Idempotency-Key': IdempotencyKeyValue });
const sourceVideo: Record<string, [TObject, string]> = {
  'video.id': [OpenAiVideoReference, 'id'],
  'video.url': [FamilyAVideoInput, 'url'],
};
const variant: Record<string, [TObject, string]> = {
  prompt: [FamilyACreateBody, 'prompt'],
  model: [FamilyACreateBody, 'model'],
  ...sourceVideo,
  generate_audio: [FamilyACreateBody, 'generate_audio'],
  idempotency_key: [headers, 'Idempotency-Key'],
};

/**
 * Where each tool argument comes from: a dialect's schema and the name of its field there
 * (`Idempotency-Key` is the header every create takes). Nested fields are named with a dot.
 */
export const MCP_FIELD_SOURCES: Record<string, Record<string, [TObject, string]>> = {
  generate_video: {
    prompt: [FamilyACreateBody, 'prompt'],
    model: [FamilyACreateBody, 'model'],
    duration: [FamilyACreateBody, 'duration'],
    aspect_ratio: [FamilyACreateBody, 'aspect_ratio'],
    size: [OpenAiVideoCreateBody, 'size'],
    image: [FamilyACreateBody, 'image'],
    last_frame: [FamilyACreateBody, 'last_frame'],
    keyframes: [FamilyACreateBody, 'keyframes'],
    reference_images: [FamilyACreateBody, 'reference_images'],
    generate_audio: [FamilyACreateBody, 'generate_audio'],
    seed: [FamilyACreateBody, 'seed'],
    idempotency_key: [headers, 'Idempotency-Key'],
  },
  edit_video: variant,
  extend_video: { ...variant, duration: [FamilyAExtensionBody, 'duration'] },
  get_video: { id: [OpenAiVideo, 'id'] },
  cancel_video: { id: [OpenAiVideo, 'id'] },
  list_videos: { after: [OpenAiVideoListQuery, 'after'] },
  list_models: {},
};

/** The arguments of each tool. */
export const MCP_TOOL_ARGS = {
  list_models: McpListModelsArgs,
  generate_video: McpGenerateVideoArgs,
  edit_video: McpEditVideoArgs,
  extend_video: McpExtendVideoArgs,
  get_video: McpVideoIdArgs,
  cancel_video: McpVideoIdArgs,
  list_videos: McpListVideosArgs,
} satisfies Record<string, TObject>;
export type McpToolName = keyof typeof MCP_TOOL_ARGS;
