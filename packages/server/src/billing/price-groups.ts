import type { Kysely, Selectable } from 'kysely';
import type { Database, PriceGroupsTable } from '../store/sql/schema.ts';

/** Parts per million: a ratio of 0.5 is 500 000, kept as an integer so prices stay exact. */
export const PPM = 1_000_000;

/**
 * A price group (new-api's user groups with model ratios): the accounts in it pay the catalog's price
 * per second × `ratioPpm` / 10⁶ (rounded down to a whole tick), or for a model it names, its own
 * price per second (at every resolution).
 */
export interface PriceGroup {
  id: string;
  ratioPpm: number;
  modelPrices: Record<string, number>;
}

/** The group's price per second of `modelId`, from the catalog's `catalogTicks` at the task's resolution. */
export function groupTicksPerSecond(group: PriceGroup | undefined, modelId: string, catalogTicks: number): number {
  if (!group) return catalogTicks;
  const own = group.modelPrices[modelId];
  if (own !== undefined) return own;
  return Number((BigInt(catalogTicks) * BigInt(group.ratioPpm)) / BigInt(PPM));
}

/** `/v1/models` pricing as the group's member sees it. */
export function groupPricing(
  group: PriceGroup | undefined,
  modelId: string,
  pricing: { usd_ticks_per_second: number; by_resolution?: Record<string, number> } | undefined,
) {
  if (!group || !pricing) return pricing;
  const own = group.modelPrices[modelId];
  if (own !== undefined) return { usd_ticks_per_second: own };
  const scale = (ticks: number) => groupTicksPerSecond(group, modelId, ticks);
  return {
    usd_ticks_per_second: scale(pricing.usd_ticks_per_second),
    ...(pricing.by_resolution
      ? {
          by_resolution: Object.fromEntries(Object.entries(pricing.by_resolution).map(([r, t]) => [r, scale(t)])),
        }
      : {}),
  };
}

export async function readPriceGroup(db: Kysely<Database>, id: string | null): Promise<PriceGroup | undefined> {
  if (id === null) return undefined;
  const row = await db.selectFrom('price_groups').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toGroup(row);
}

export async function listPriceGroups(db: Kysely<Database>): Promise<PriceGroup[]> {
  return (await db.selectFrom('price_groups').selectAll().orderBy('id').execute()).map(toGroup);
}

export async function writePriceGroup(db: Kysely<Database>, group: PriceGroup, now: number): Promise<PriceGroup> {
  const set = { ratio_ppm: group.ratioPpm, model_prices: JSON.stringify(group.modelPrices), updated_at: now };
  await db
    .insertInto('price_groups')
    .values({ id: group.id, ...set })
    .onConflict((oc) => oc.column('id').doUpdateSet(set))
    .execute();
  return group;
}

/** The price group of an account, if it is in one. */
export async function priceGroupOf(db: Kysely<Database>, accountId: string): Promise<PriceGroup | undefined> {
  const plan = await db
    .selectFrom('account_plans')
    .select('price_group')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return readPriceGroup(db, plan?.price_group ?? null);
}

function toGroup(row: Selectable<PriceGroupsTable>): PriceGroup {
  return { id: row.id, ratioPpm: Number(row.ratio_ppm), modelPrices: JSON.parse(row.model_prices) };
}
