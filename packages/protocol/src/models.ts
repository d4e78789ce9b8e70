import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.ts';

export const ModelCapabilities = Type.Object({
  generate: Type.Boolean(),
  edit: Type.Boolean(),
  extend: Type.Boolean(),
});

export const SOUND_MODES = ['none', 'optional', 'always'] as const;
export const ModelSound = Type.Object(
  {
    mode: StringEnum(SOUND_MODES),
    default: Type.Optional(
      Type.Boolean({ description: 'For `optional`: what a request without `generate_audio` gets.' }),
    ),
  },
  {
    description:
      'Whether the videos carry sound: `none` (`generate_audio: true` is refused), `always` (`generate_audio: ' +
      'false` is refused) or `optional`.',
  },
);
export type ModelSound = Static<typeof ModelSound>;

const INPUT_KEYS = [
  'first_frame',
  'last_frame',
  'keyframes',
  'reference_images',
  'reference_audios',
  'reference_videos',
] as const;
const most = (what: string) => Type.Integer({ minimum: 0, description: `The most ${what} a request may send.` });

/** What a model composes a video from (docs/inputs.md): each input a request may send, and how many. */
export const ModelInputs = Type.Object(
  {
    first_frame: Type.Boolean({ description: 'Takes a first frame.' }),
    last_frame: Type.Boolean({ description: 'Takes a last frame.' }),
    keyframes: most('keyframes (an image at a time, 0 < t < duration)'),
    reference_images: most('reference images'),
    reference_audios: most('reference audios (the soundtrack; only with sound)'),
    reference_videos: most('reference videos'),
    exclusive: Type.Array(Type.Array(StringEnum(INPUT_KEYS)), {
      description: 'Groups of the keys above of which one request may use at most one.',
    }),
  },
  { description: 'The inputs the model takes; a request sending any other is refused (`unsupported_input`).' },
);
export type ModelInputs = Static<typeof ModelInputs>;

/** One entry of `GET /v1/models`: the OpenAI list shape plus what the model can do. */
export const ModelObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
  family: Type.String({
    description: 'The API dialect that serves the model: "A" (xAI style) or "B" (new-api style).',
  }),
  endpoint: Type.String(),
  resolution: Type.String({ description: 'The default output resolution.' }),
  resolutions: Type.Array(Type.String(), { description: 'Every `resolution` a family A request may ask for.' }),
  durations: Type.Array(Type.Integer()),
  aspect_ratios: Type.Array(Type.String()),
  requires_image: Type.Boolean(),
  inputs: ModelInputs,
  capabilities: ModelCapabilities,
  aliases: Type.Array(Type.String()),
  sound: ModelSound,
  pricing: Type.Optional(
    Type.Object(
      {
        usd_ticks_per_second: Type.Integer({ minimum: 0 }),
        by_resolution: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 0 }))),
        sound_usd_ticks_per_second: Type.Optional(
          Type.Integer({
            minimum: 0,
            description: 'Added per output second when the verified output has sound (`generate_audio`).',
          }),
        ),
      },
      {
        description:
          'vidgen extension: the price per output second in USD ticks (1 tick = 10⁻¹⁰ USD), optionally by output ' +
          'resolution.',
      },
    ),
  ),
  alias_of: Type.Optional(Type.String({ description: "On an alias's own entry: the id of the model it names." })),
});
export type ModelObject = Static<typeof ModelObject>;

export const ModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelObject) });
export type ModelList = Static<typeof ModelList>;
