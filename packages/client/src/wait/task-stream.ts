import { readEventStream, type EventStreamOptions } from '../core/event-stream.ts';
import type { Transport } from '../core/transport.ts';
import type { Family, TaskObject } from '../types.ts';
import { taskPath, viewOf } from './task-view.ts';

/** One state of a task as its stream sent it. */
export interface TaskStreamEvent<T> {
  /** The event's id (the task's revision): give it as `lastEventId` to continue after it, on any server process. */
  id: string;
  /** The task, exactly as a poll answers it. */
  task: T;
}

export type TaskStreamOptions = EventStreamOptions;

/** The task's stream (`<poll path>/events`, docs/streams.md). */
export function taskStreamPath(family: Family, id: string): string {
  return `${taskPath(family, id)}/events`;
}

/**
 * The states of a task as the server sends them, each when it happens, ending after the final
 * one (done, failed or expired: yielded, not thrown). Connections that break are made again with
 * the last id, so no state comes twice and none after the last one seen is missed.
 */
export async function* streamTask<F extends Family>(
  transport: Transport,
  family: F,
  id: string,
  opts: TaskStreamOptions = {},
): AsyncGenerator<TaskStreamEvent<TaskObject<F>>> {
  const events = readEventStream(transport, {
    ...opts,
    path: taskStreamPath(family, id),
    isLast: (event) => viewOf(family, JSON.parse(event.data)).phase !== 'pending',
  });
  for await (const event of events) yield { id: event.id ?? '', task: JSON.parse(event.data) as TaskObject<F> };
}
