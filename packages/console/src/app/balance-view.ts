import { formatUsdTicks, type AccountObject, type VidgenClient } from '@vidgen/client';
import { h } from './dom.ts';

/**
 * The caller's balance in the page header (GET /v1/account). A metered account holds each task's
 * price at submit and settles it when the task ends, so the figures are re-read after a submit and
 * after a task ends; amounts are integer USD ticks, written as dollars exactly (formatUsdTicks).
 */
export class BalanceView {
  readonly el = h('p', { class: 'balance', 'aria-live': 'off' });
  private reading: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly client: VidgenClient,
    private readonly onError: (err: unknown) => boolean,
  ) {}

  /** Reads the account again; calls while one read runs collapse into one more read after it. */
  refresh(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.read().finally(() => {
      this.reading = undefined;
      if (this.again) {
        this.again = false;
        this.refresh();
      }
    });
  }

  private async read(): Promise<void> {
    try {
      this.show(await this.client.account.retrieve());
    } catch (err) {
      // The balance is a convenience: a failed read leaves the last figures (or none) in place.
      if (!this.onError(err)) this.el.title = 'Could not read the balance just now.';
    }
  }

  private show(account: AccountObject): void {
    this.el.dataset.metered = String(account.metered);
    this.el.dataset.balanceTicks = String(account.balance_usd_ticks);
    this.el.dataset.heldTicks = String(account.held_usd_ticks);
    if (!account.metered) {
      this.el.title = 'This account is not charged for its tasks; each task still shows its price.';
      this.el.replaceChildren('Not metered');
      return;
    }
    this.el.title = 'Held: the price of tasks not finished yet, reserved at submit and settled when they end.';
    const held =
      account.held_usd_ticks > 0
        ? h('span', { class: 'balance-held' }, ` · ${formatUsdTicks(account.held_usd_ticks)} held`)
        : null;
    this.el.replaceChildren(
      'Balance ',
      h('strong', { class: 'balance-amount' }, formatUsdTicks(account.balance_usd_ticks)),
      held ?? '',
    );
  }
}
