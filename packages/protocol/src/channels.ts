import { Type, type Static } from '@sinclair/typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const most = (what: string) => Type.Integer({ minimum: 0, description: `The most ${what} it takes.` });
const INPUT_KEY = Type.Union(
  ['first_frame', 'last_frame', 'keyframes', 'reference_images', 'reference_audios', 'reference_videos'].map((k) =>
    Type.Literal(k),
  ),
);

/** What a relay channel takes (the backends file's `inputs`, or its upstream's default), shaped as a model's. */
export const RelayChannelInputs = Type.Object(
  {
    first_frame: Type.Boolean(),
    last_frame: Type.Boolean(),
    keyframes: most('keyframes'),
    reference_images: most('reference images'),
    reference_audios: most('reference audios'),
    reference_videos: most('reference videos'),
    exclusive: Type.Array(Type.Array(INPUT_KEY), {
      description: 'Groups of the keys above of which one task may use at most one.',
    }),
  },
  { description: 'The inputs the channel takes: a task goes only to a channel that takes all of its inputs.' },
);

/**
 * One relay channel as the operator sees it (`GET /admin/v1/channels`): its place in the backends
 * file and the state every worker process shares. Names only: never an upstream URL or key.
 */
export const RelayChannelObject = Type.Object({
  object: Type.Literal('relay_channel'),
  backend: Type.String({ description: 'The relay backend (a key of the backends file).' }),
  name: Type.String(),
  dialect: Type.String({ description: '`A`, `B`, `fal`, `replicate`, `openai` or `veo`.' }),
  upstream: Type.String({
    description:
      'What answers at the channel: `xai`, `new-api`, `vidgen`, `fal`, `replicate`, `openai`, `vllm-omni`, ' +
      '`sglang` or `gemini`.',
  }),
  priority: Type.Number(),
  weight: Type.Number({ description: 'In effect: the runtime override, else the backends file.' }),
  enabled: Type.Boolean(),
  state: Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half_open')], {
    description: 'The circuit breaker.',
  }),
  failures: Type.Integer({ description: 'Definite failures in the current window.' }),
  opened_at: Nullable(
    Type.Integer({ description: 'Unix milliseconds the breaker last opened, while open or half open.' }),
  ),
  running: Type.Integer({ description: 'Tasks holding a slot of the channel now.' }),
  requests_last_minute: Type.Integer({ description: 'Creates sent in the last 60 s.' }),
  p50_latency_ms: Nullable(
    Type.Integer({ description: 'Median latency of the calls made to it in the last 5 minutes; null: none.' }),
  ),
  error_rate: Nullable(
    Type.Number({
      description: 'Share of those calls with no answer, a 5xx, 429, 401 or 403 (0–1); null: no call.',
    }),
  ),
  calls_last_5_minutes: Type.Integer({ description: 'Calls of every kind (create, poll, lookup) in the last 5 min.' }),
  limits: Type.Object({ max_concurrent: Nullable(Type.Integer()), max_rpm: Nullable(Type.Integer()) }),
  inputs: RelayChannelInputs,
});
export type RelayChannelObject = Static<typeof RelayChannelObject>;
export const RelayChannelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(RelayChannelObject) });

/** `PATCH /admin/v1/channels/{backend}/{name}`: runtime changes; `null` returns to the backends file's value. */
export const RelayChannelPatchBody = Type.Object(
  {
    enabled: Type.Optional(Nullable(Type.Boolean())),
    weight: Type.Optional(
      Nullable(
        Type.Number({
          exclusiveMinimum: 0,
          description: 'A positive number; the share among channels of equal priority.',
        }),
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type RelayChannelPatchBody = Static<typeof RelayChannelPatchBody>;

/** `POST /admin/v1/channels/{backend}/{name}/test`: one cheap authenticated read of the upstream. */
export const RelayChannelTestAnswer = Type.Object({
  object: Type.Literal('relay_channel_test'),
  backend: Type.String(),
  name: Type.String(),
  ok: Type.Boolean({ description: 'The upstream answered and took the key.' }),
  status: Nullable(Type.Integer({ description: 'The HTTP status it answered; null: no answer.' })),
  latency_ms: Type.Integer(),
  message: Type.String({ description: 'What the answer means, in words.' }),
});
export type RelayChannelTestAnswer = Static<typeof RelayChannelTestAnswer>;

/**
 * One ComfyUI host of VIDGEN_COMFYUI_CONFIG (`GET /admin/v1/comfyui-hosts`), read-only, as the process that
 * answers sees it: busy slots and the cooldown after a failure are kept per process, so each worker may see
 * a host differently. Its name only: never its URL or headers.
 */
export const ComfyUiHostObject = Type.Object({
  object: Type.Literal('comfyui_host'),
  name: Type.String(),
  slots: Type.Integer({ description: 'Prompts kept on the host at a time (the config file).' }),
  busy: Type.Integer({ description: 'Slots the answering process holds on it now.' }),
  cooling_down_until: Nullable(
    Type.Integer({
      description:
        'Unix milliseconds until which the answering process passes the host over after a failure; null: not now.',
    }),
  ),
  backends: Type.Array(Type.String(), { description: 'The ComfyUI backends that may render on it.' }),
});
export type ComfyUiHostObject = Static<typeof ComfyUiHostObject>;
export const ComfyUiHostList = Type.Object({
  object: Type.Literal('list'),
  cooldown_scope: Type.Literal('process', {
    description: 'Busy slots and cooldowns are those of the process that answered, not of every worker.',
  }),
  data: Type.Array(ComfyUiHostObject),
});
