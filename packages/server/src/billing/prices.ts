import type { ModelEntry } from '../catalog/model-catalog.ts';
import type { ServiceTier, Task } from '../domain/task.ts';

/**
 * Ticks per output second of this model at this output short side (the catalog's price, or 0 when
 * it has none), plus the sound price when the output carries sound.
 */
export function perSecondTicks(model: ModelEntry | undefined, shortSide?: number, sound = false): number {
  const price = model?.price;
  if (!price) return 0;
  const picture = (shortSide ? price.byResolution[`${shortSide}p`] : undefined) ?? price.usdTicksPerSecond;
  return picture + (sound ? price.soundUsdTicksPerSecond : 0);
}

/**
 * The price a submit holds: the seconds the request fixes (a generation's duration, an
 * extension's added seconds on top of a known source), or for an edit, whose length comes from
 * its input, the model's longest duration. Settlement never charges more than this.
 */
export function holdTicks(
  model: ModelEntry | undefined,
  task: Pick<Task, 'kind' | 'params'> & { serviceTier?: ServiceTier },
  /** The price per second the account pays (a price group's), instead of the catalog's. */
  perSecond?: (catalogTicks: number) => number,
): number {
  if (!model) return 0;
  const catalogTicks = perSecondTicks(model, shortSideOf(task.params), task.params.audio === true);
  const accountTicks = perSecond ? perSecond(catalogTicks) : catalogTicks;
  return tierTicksPerSecond(model, task.serviceTier, accountTicks) * heldSeconds(model, task);
}

/**
 * The price per second of a tier, on top of the account's (a price group's): flex and batch lines
 * at the model's batch ratio, priority at its priority ratio, rounded down to a whole tick as price
 * groups round (invariant 7, docs/architecture.md).
 */
export function tierTicksPerSecond(model: ModelEntry, tier: ServiceTier | undefined, ticks: number): number {
  if (!model.price || tier === undefined || tier === 'default') return ticks;
  const ppm =
    tier === 'priority' ? (model.price.priorityRatioPpm ?? 1_500_000) : (model.price.batchRatioPpm ?? 500_000);
  return Number((BigInt(ticks) * BigInt(ppm)) / 1_000_000n);
}

/**
 * What a succeeded task with a hold is charged: the hold's price per second (the account's price
 * when it was held) × its verified output in whole seconds (at least one), never more than held.
 */
export function chargeFromHold(
  model: ModelEntry | undefined,
  task: Pick<Task, 'kind' | 'params' | 'result'>,
  held: number,
): number {
  const measured = task.result?.durationSeconds;
  const seconds = model ? heldSeconds(model, task) : 0;
  if (measured === undefined || seconds <= 0) return held;
  return Math.min(held, Math.floor(held / seconds) * Math.max(1, Math.round(measured)));
}

/** The output seconds a submit is held for (see holdTicks). */
export function heldSeconds(model: ModelEntry, task: Pick<Task, 'kind' | 'params'>): number {
  const { params } = task;
  const maxSeconds = model.durations[model.durations.length - 1] ?? 0;
  const sourceSeconds = params.video?.kind === 'task' ? params.video.seconds : undefined;
  return task.kind === 'generate'
    ? params.duration
    : task.kind === 'extend'
      ? Math.ceil(sourceSeconds ?? maxSeconds) + params.duration
      : Math.ceil(sourceSeconds ?? maxSeconds);
}

/** Unit price shown in `/v1/models`. */
export function pricingOf(
  model: ModelEntry,
):
  | { usd_ticks_per_second: number; by_resolution?: Record<string, number>; sound_usd_ticks_per_second?: number }
  | undefined {
  if (!model.price) return undefined;
  const byResolution = model.price.byResolution;
  const sound = model.price.soundUsdTicksPerSecond;
  return {
    usd_ticks_per_second: model.price.usdTicksPerSecond,
    ...(Object.keys(byResolution).length ? { by_resolution: { ...byResolution } } : {}),
    ...(sound > 0 ? { sound_usd_ticks_per_second: sound } : {}),
  };
}

function shortSideOf(params: Task['params']): number | undefined {
  return params.width && params.height ? Math.min(params.width, params.height) : undefined;
}
