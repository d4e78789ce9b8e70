import type { CallbackFields } from '@vidgen/protocol';
import { InvalidRequest } from '../../errors.ts';

/** The names a per-request webhook is sent under (protocol's CallbackFields), the first preferred. */
const ALIASES = ['webhook_url', 'callback_url', 'fal_webhook'] as const;

/**
 * The per-request webhook of a submit's body, under whichever name it came (any dialect's
 * `toInput`): the service checks it like an endpoint's URL and names the field with
 * `callbackFieldName` when it refuses it.
 */
export function callbackUrlOf(body: CallbackFields): string | undefined {
  const given = ALIASES.filter((alias) => body[alias] !== undefined);
  if (given.length > 1) {
    throw new InvalidRequest(
      'invalid_value',
      `Send one of ${given.map((a) => `\`${a}\``).join(', ')}, not several: they are the same field.`,
      given[1],
    );
  }
  return given.length === 0 ? undefined : body[given[0]];
}

/** The wire name of the engine's `callbackUrl` in this body (a dialect's `fieldName`). */
export function callbackFieldName(body: unknown): string {
  const sent = body as Partial<Record<string, unknown>> | undefined;
  return ALIASES.find((alias) => sent?.[alias] !== undefined) ?? ALIASES[0];
}
