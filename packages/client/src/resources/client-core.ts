import type { Transport } from '../core/transport.ts';
import type { SubmitRequest } from '../submit/submit-task.ts';
import type { WaitOptions } from '../wait/wait-for.ts';
import type { Created, Family, TaskObject } from '../types.ts';

/** What the resource classes need from the client; keeps them free of the client's construction. */
export interface ClientCore {
  readonly transport: Transport;
  submit<T>(req: SubmitRequest): Promise<Created<T>>;
  waitFor<F extends Family>(id: string, opts: WaitOptions<F>): Promise<TaskObject<F>>;
}
