import { Type, type Static } from '@sinclair/typebox';

const about = (alias: string) =>
  `${alias}A per-request webhook: this task's events (and no others) are POSTed there, signed (Standard ` +
  `Webhooks) with the account's callback secret (\`GET /v1/webhooks/default/secret\`). http(s) on a public ` +
  `address.`;

/**
 * The per-request webhook of a submit, under the names callers already send: `webhook_url`
 * (OpenRouter, Kling, MiniMax), `callback_url` (Seedance, Kling) and fal's `fal_webhook`. A
 * dialect's body spreads these properties; one of them at most.
 */
export const CallbackFields = {
  webhook_url: Type.Optional(Type.String({ minLength: 1, description: about('') })),
  callback_url: Type.Optional(Type.String({ minLength: 1, description: about('Alias of `webhook_url`. ') })),
  fal_webhook: Type.Optional(Type.String({ minLength: 1, description: about("fal's name for `webhook_url`. ") })),
};
const CallbackObject = Type.Object(CallbackFields);
export type CallbackFields = Static<typeof CallbackObject>;

/** `GET /v1/webhooks/default/secret` (Replicate's route): the secret that signs per-request webhooks. */
export const CallbackSecret = Type.Object({
  key: Type.String({ description: '`whsec_…`: verify per-request webhooks with it (Standard Webhooks).' }),
});
