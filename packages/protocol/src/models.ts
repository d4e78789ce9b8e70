import { Type, type Static } from '@sinclair/typebox';

export const ModelCapabilities = Type.Object({
  generate: Type.Boolean(),
  edit: Type.Boolean(),
  extend: Type.Boolean(),
});

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
  capabilities: ModelCapabilities,
  aliases: Type.Array(Type.String()),
  pricing: Type.Optional(
    Type.Object(
      {
        usd_ticks_per_second: Type.Integer({ minimum: 0 }),
        by_resolution: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 0 }))),
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
