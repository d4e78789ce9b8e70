import type { ContentVariant } from '@vidgen/protocol';
import type { Task } from '../../domain/task.ts';
import type { TaskStore } from '../../store/task-store.ts';
import type { Dialect } from '../dialects/dialect.ts';
import { contentPath, signedLink, type LinkOptions } from '../links.ts';

export interface EventDataDeps {
  tasks: Pick<TaskStore, 'get'>;
  dialects: readonly Dialect[];
  links: LinkOptions;
  /** Where links point when VIDGEN_PUBLIC_URL is unset: this process's own listener. */
  fallbackBaseUrl: () => string;
  /** The key a link is signed for (the account's newest active key). */
  linkKeyOf: (accountId: string) => Promise<string | undefined>;
  clock: () => number;
}

/**
 * The `data` of a task event, frozen into the event's body in the transaction of the change it
 * reports (webhooks/webhook-outbox.ts): the task exactly as its family's poll returns it, except
 * that a link to its content is the content route's plain URL (`{base}/v1/videos/{id}/content`,
 * fetched with the API key), never a signed link: a signed link expires and names a key, and the
 * body must stay the same bytes on every attempt, after a key rotation, for as long as it is kept.
 * A fresh signed link is one poll away.
 */
export function frozenEventData(dialects: readonly Dialect[], baseUrl: () => string) {
  return (task: Task): Record<string, unknown> => {
    const dialect = dialects.find((d) => d.family === task.family);
    if (!dialect) return { id: task.id, family: task.family };
    const base = baseUrl().replace(/\/+$/, '');
    const signedContentUrl = (_task: Task, variant?: ContentVariant) =>
      `${base}${contentPath(task.id)}${variant ? `?variant=${variant}` : ''}`;
    return { id: task.id, family: dialect.family, object: dialect.toWire(task, { signedContentUrl }) };
  };
}

/**
 * For deliveries queued before event bodies were frozen: the `data` of a task event rendered at
 * delivery time so family A's signed `video.url` is fresh. Links are signed for the account's
 * newest active key: the content route checks links against a live key of the account, so this
 * needs no new kind of credential, and revoking the account's keys revokes the links too.
 */
export function createEventData(deps: EventDataDeps) {
  return async (taskId: string): Promise<Record<string, unknown> | undefined> => {
    const task = await deps.tasks.get(taskId);
    const dialect = task && deps.dialects.find((d) => d.family === task.family);
    if (!task || !dialect) return undefined;
    const keyId = await deps.linkKeyOf(task.accountId);
    const base = deps.links.publicUrl ?? deps.fallbackBaseUrl();
    // The poster's link too (family A's `thumbnail_url`): a variant of the same signed link.
    const signedContentUrl = (_task: Task, variant?: ContentVariant) =>
      keyId === undefined
        ? `${base.replace(/\/+$/, '')}${contentPath(task.id)}${variant ? `?variant=${variant}` : ''}`
        : signedLink(base, task, keyId, deps.links, deps.clock(), variant);
    const id = dialect.wireIds?.fromTask(task.id) ?? task.id;
    return { id, family: dialect.family, object: dialect.toWire(task, { signedContentUrl }) };
  };
}
