import type { Answer } from './http.ts';

/**
 * Checks every answer a client gets while the service's storage fails (invariant 9): a 503 must
 * carry Retry-After, the error envelope and a request id; any other 5xx is a finding. The
 * findings are collected, not thrown, so requests running beside the fault keep going and the
 * test reports them all at once.
 */
export class FaultAnswers {
  readonly problems: string[] = [];
  /** How many answers were a proper 503. */
  unavailable = 0;

  check(what: string, a: Answer): Answer {
    if (a.status === 503) {
      this.unavailable++;
      if (!a.headers.get('retry-after')) this.problems.push(`${what}: 503 without Retry-After`);
      if (a.body?.error?.code !== 'service_unavailable')
        this.problems.push(`${what}: 503 outside the envelope: ${JSON.stringify(a.body)}`);
      if (!a.headers.get('x-request-id')) this.problems.push(`${what}: 503 without x-request-id`);
    } else if (a.status >= 500) this.problems.push(`${what}: ${a.status} ${JSON.stringify(a.body)}`);
    return a;
  }

  /** A fetch for the SDK that checks each 5xx it receives before the SDK retries it. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    if (res.status >= 500) {
      const body = await res
        .clone()
        .json()
        .catch(() => undefined);
      this.check(`SDK ${init?.method ?? 'GET'} ${String(input)}`, { status: res.status, headers: res.headers, body });
    }
    return res;
  };
}
