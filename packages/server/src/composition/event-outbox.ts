import type { Config } from '../config.ts';
import type { Dialect } from '../api/dialects/dialect.ts';
import { frozenEventData } from '../api/webhooks/event-data.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import type { CallbackSecrets } from '../webhooks/callback-secret.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';
import { webhookOutbox } from '../webhooks/webhook-outbox.ts';
import type { Tracing } from '../observability/tracing/tracing.ts';

/**
 * The event log and webhook outbox as `main.ts` runs them: events' bodies rendered in their
 * task's dialect, with links on VIDGEN_PUBLIC_URL (else this process's listener, known once it
 * listens: `listenerUrl` is read when an event is made), and per-request callbacks signed with the
 * account's callback secret.
 */
export function createEventOutbox(deps: {
  config: Config;
  dialects: readonly Dialect[];
  box: SecretBox;
  callbacks: CallbackSecrets;
  listenerUrl: () => string;
  clock: () => number;
  tracing: Tracing;
}): TransitionEffects {
  const { config } = deps;
  return webhookOutbox({
    maxAttempts: config.webhooks.maxAttempts,
    clock: deps.clock,
    render: frozenEventData(deps.dialects, () => config.publicUrl ?? deps.listenerUrl()),
    callbackSecret: (accountId) => deps.box.seal(deps.callbacks.of(accountId)),
    tracing: deps.tracing,
  });
}
