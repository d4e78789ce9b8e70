import type { AccountObject, RequestOptions, UsageReport } from '../types.ts';
import type { ClientCore } from './client-core.ts';

/**
 * The key's own account: `GET /v1/account` (metering, balance and held credits in USD ticks,
 * 1 tick = 10⁻¹⁰ USD; `formatUsdTicks` writes them as dollars exactly) and `GET /v1/usage`.
 */
export class Account {
  constructor(private readonly core: ClientCore) {}

  async retrieve(opts: RequestOptions = {}): Promise<AccountObject> {
    return (await this.core.transport.request<AccountObject>({ method: 'GET', path: '/v1/account', ...opts })).data;
  }

  /** Tasks, seconds and cost by model and UTC day; `since`/`until` as YYYY-MM-DD. */
  async usage(params: { since?: string; until?: string } = {}, opts: RequestOptions = {}): Promise<UsageReport> {
    return (
      await this.core.transport.request<UsageReport>({ method: 'GET', path: '/v1/usage', query: params, ...opts })
    ).data;
  }
}
