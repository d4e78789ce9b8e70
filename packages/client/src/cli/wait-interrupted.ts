import { APIUserAbortError } from '../errors.ts';

/** Ctrl-C while waiting for a known task: the task goes on on the server, and this names it for the next command. */
export class WaitInterrupted extends APIUserAbortError {
  constructor(
    readonly taskId: string,
    cause: unknown,
  ) {
    super(
      `Interrupted. Task ${taskId} goes on on the server; \`vidgen resume\` finishes it (\`vidgen wait ${taskId}\` ` +
        'waits for it alone).',
      { cause },
    );
  }
}
