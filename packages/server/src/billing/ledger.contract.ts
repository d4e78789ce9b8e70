import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AccountStore } from '../store/account-store.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import type { TaskStore } from '../store/task-store.ts';
import type { SqlLedger } from './sql-ledger.ts';
import { uuidv7 } from '../domain/ids.ts';
import { createModelCatalog } from '../catalog/model-catalog.ts';
import type { NewTask } from '../store/task-store.ts';
import type { ApiError } from '../errors.ts';
import { ledgerEffects } from './ledger-effects.ts';

const PER_SECOND = 1000;
const catalog = createModelCatalog(
  {
    models: [
      {
        id: 'm',
        family: 'B',
        backend: 'fx',
        resolution: '144p',
        durations: { min: 1, max: 10 },
        price: { usd_ticks_per_second: PER_SECOND },
      },
    ],
  },
  { fx: ['generate'] },
);

/**
 * The ledger's contract, run on every database it supports: credits are idempotent, a hold is
 * written with its task or not at all, settle charges the verified output (never more than held)
 * and releases the rest, exactly once, and `verify` recomputes balances from the entries.
 */
/** The stores the ledger is used through, opened on one database with the given transition effects. */
export interface LedgerStores {
  accounts: AccountStore;
  tasks: TaskStore;
  ledger: SqlLedger;
  close(): Promise<void>;
}

export function ledgerContract(open: (effects: readonly TransitionEffects[]) => Promise<LedgerStores>): void {
  describe('ledger contract', () => {
    let stores: LedgerStores;
    let clock = Date.now();
    before(async () => {
      stores = await open([ledgerEffects(catalog, () => clock)]);
    });
    after(async () => {
      await stores?.close();
    });
    const account = async (name: string) => (await stores.accounts.ensureAccount(name, null, clock)).id;
    const task = (accountId: string, duration: number): NewTask => ({
      id: uuidv7(clock),
      accountId,
      family: 'B',
      kind: 'generate',
      model: 'm',
      backend: 'fx',
      createdAt: clock++,
      params: { prompt: 'p', images: [], duration, aspectRatio: '16:9', width: 256, height: 144, fps: 24 },
    });
    const claim = async () =>
      (await stores.tasks.claim({ owner: 'w', backend: 'fx', leaseMs: 60_000, now: clock, maxRunningPerAccount: 0 }))!;

    it('credits are idempotent with a key; another amount under the key is refused; available stays ≥ 0', async () => {
      const id = await account('credits');
      // A grant never meters an account by itself: refused, nothing written, until the operator says so.
      await assert.rejects(
        stores.ledger.credit({ accountId: id, amountUsdTicks: 5000, reason: 'r' }, clock),
        (e: ApiError) => e.status === 409 && e.code === 'account_unmetered',
      );
      assert.equal((await stores.ledger.plan(id))?.metered ?? false, false);
      const first = await stores.ledger.credit(
        { accountId: id, amountUsdTicks: 5000, reason: 'r', idempotencyKey: 'k1', meter: true },
        clock,
      );
      assert.equal(first.plan.metered, true);
      const again = await stores.ledger.credit(
        { accountId: id, amountUsdTicks: 5000, reason: 'r', idempotencyKey: 'k1' },
        clock,
      );
      assert.equal(again.replayed, true);
      assert.equal(again.entry.id, first.entry.id);
      assert.equal(again.plan.balanceUsdTicks, 5000);
      await assert.rejects(
        stores.ledger.credit({ accountId: id, amountUsdTicks: 6000, reason: 'r', idempotencyKey: 'k1' }, clock),
        (e: ApiError) => e.status === 422,
      );
      await assert.rejects(
        stores.ledger.credit({ accountId: id, amountUsdTicks: -5001, reason: 'too much' }, clock),
        (e: ApiError) => e.code === 'insufficient_credits',
      );
      assert.equal(
        (await stores.ledger.credit({ accountId: id, amountUsdTicks: -1000, reason: 'fee' }, clock)).plan
          .balanceUsdTicks,
        4000,
      );
      assert.deepEqual((await stores.ledger.verify()).problems, []);
    });

    it('a hold is written with its task or not at all; settling charges verified seconds, once', async () => {
      const id = await account('holds');
      await stores.ledger.credit(
        { accountId: id, amountUsdTicks: 10 * PER_SECOND, reason: 'start', meter: true },
        clock,
      );
      const big = task(id, 10);
      await stores.tasks.insert(big);
      await assert.rejects(stores.tasks.insert(task(id, 1)), (e: ApiError) => e.status === 402);
      assert.equal(
        (await stores.tasks.list({ accountId: id, family: 'B', limit: 10 })).length,
        1,
        'the refused task was not written',
      );
      const { lease } = await claim();
      // The output came out 6 s long (an upstream's shorter video): 6 s are charged, 4 s released.
      assert.equal(
        await stores.tasks.complete(
          lease,
          { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 6.2, upstreamCostUsdTicks: 4321 },
          clock,
          clock + 1000,
        ),
        true,
      );
      assert.equal(
        await stores.tasks.complete(
          lease,
          { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 6.2 },
          clock,
          clock + 1000,
        ),
        false,
      );
      const plan = await stores.ledger.plan(id);
      assert.deepEqual([plan?.balanceUsdTicks, plan?.heldUsdTicks], [4 * PER_SECOND, 0]);
      const entries = await stores.ledger.entries({ taskId: big.id, limit: 10 });
      assert.deepEqual(entries.map((e) => [e.kind, e.amountUsdTicks]).sort(), [
        ['hold', 10_000],
        ['release', 4000],
        ['settle', 6000],
      ]);
      const done = await stores.tasks.get(big.id);
      assert.deepEqual(done?.usage, { costUsdTicks: 6000, upstreamCostUsdTicks: 4321 });
      // Expiry after success changes nothing owed.
      assert.equal((await stores.tasks.expireDue(clock + 2000, 10)).length, 1);
      assert.deepEqual((await stores.ledger.verify()).problems, []);
      const usage = await stores.ledger.usage({ accountId: id });
      assert.deepEqual(
        usage.map((u) => [u.model, u.tasks, u.costUsdTicks, u.upstreamCostUsdTicks]),
        [['m', 1, 6000, 4321]],
      );
    });

    it('unmetered accounts are never refused and still see their cost', async () => {
      const id = await account('free');
      const t = await stores.tasks.insert(task(id, 2));
      const { lease } = await claim();
      assert.equal(lease.id, t.id);
      await stores.tasks.complete(
        lease,
        { blobKey: 'k', bytes: 1, etag: '"e"', durationSeconds: 2 },
        clock,
        clock + 1000,
      );
      assert.equal((await stores.tasks.get(t.id))?.usage?.costUsdTicks, 2 * PER_SECOND);
      assert.equal((await stores.ledger.entries({ accountId: id, limit: 10 })).length, 0);
    });

    it('concurrent holds never overdraw: 20 inserts against credits for 5', async () => {
      const id = await account('race');
      await stores.ledger.credit(
        { accountId: id, amountUsdTicks: 5 * PER_SECOND, reason: 'start', meter: true },
        clock,
      );
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => stores.tasks.insert(task(id, 1))));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
      assert.equal((await stores.ledger.plan(id))?.heldUsdTicks, 5 * PER_SECOND);
      assert.deepEqual((await stores.ledger.verify()).problems, []);
    });

    it('verify finds a balance that does not follow from the entries', async () => {
      const id = await account('tampered');
      await stores.ledger.credit({ accountId: id, amountUsdTicks: 100, reason: 'start', meter: true }, clock);
      await stores.ledger.setPlan(id, { maxActiveTasks: 3 }, clock);
      // Only a direct write can do this: every path of the service moves balance with an entry.
      const db = (
        stores.ledger as unknown as { db: import('kysely').Kysely<import('../store/sql/schema.ts').Database> }
      ).db;
      await db
        .updateTable('account_plans')
        .set({ balance_usd_ticks: 1_000_000 })
        .where('account_id', '=', id)
        .execute();
      const report = await stores.ledger.verify();
      assert.ok(
        report.problems.some((p) => p.accountId === id && /balance/.test(p.problem)),
        JSON.stringify(report.problems),
      );
      await db.updateTable('account_plans').set({ balance_usd_ticks: 100 }).where('account_id', '=', id).execute();
    });
  });
}
