import type { RelayChannelConfig } from './relay-config.ts';
import { RELAY_DIALECTS } from './relay-dialects.ts';
import { answeredHealthy, callUpstream, UpstreamCallFailed } from './relay-http.ts';

export interface ChannelTestResult {
  ok: boolean;
  /** Null when no HTTP answer came. */
  status: number | null;
  latencyMs: number;
  message: string;
}

/** An upstream task id no upstream has made: its poll costs nothing and starts nothing. */
const NO_SUCH_TASK = 'vidgen-channel-test-00000000';
const TEST_TIMEOUT_MS = 10_000;

/**
 * The operator's "Test": one poll, in the channel's own dialect and with its own key, of a task that
 * does not exist. Every upstream answers a poll without charging for it; a 404 (or another 4xx about
 * the id) shows the upstream is up and took the key, a 401/403 that it refused the key, a 5xx, 429 or
 * no answer that it is not serving. Nothing is created upstream, so the test is never billed.
 */
export async function testChannel(channel: RelayChannelConfig): Promise<ChannelTestResult> {
  const dialect = RELAY_DIALECTS[channel.dialect];
  const model = Object.values(channel.models)[0] ?? 'model';
  const started = performance.now();
  try {
    const answer = await callUpstream(
      channel,
      { method: 'GET', path: dialect.pollPath(NO_SUCH_TASK, model), timeoutMs: TEST_TIMEOUT_MS },
      AbortSignal.timeout(TEST_TIMEOUT_MS),
    );
    const ok = answeredHealthy(answer.status);
    return {
      ok,
      status: answer.status,
      latencyMs: Math.round(performance.now() - started),
      message: meaning(answer.status),
    };
  } catch (err) {
    const sent = err instanceof UpstreamCallFailed ? err.sent : 'maybe';
    return {
      ok: false,
      status: null,
      latencyMs: Math.round(performance.now() - started),
      message: sent === 'no' ? 'The upstream could not be reached.' : 'The upstream did not answer in time.',
    };
  }
}

function meaning(status: number): string {
  if (status === 401 || status === 403) return `The upstream refused the channel's key (HTTP ${status}).`;
  if (status === 429) return 'The upstream is throttling the channel (HTTP 429).';
  if (status >= 500) return `The upstream answered with a server error (HTTP ${status}).`;
  return `The upstream answered and took the key (HTTP ${status} for a task that does not exist).`;
}
