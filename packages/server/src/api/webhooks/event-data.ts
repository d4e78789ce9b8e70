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
 * The `data` of a task event: the task exactly as its family's poll returns it, rendered at
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
