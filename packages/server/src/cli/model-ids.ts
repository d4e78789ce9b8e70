import type { ModelNames } from '../catalog/model-catalog.ts';
import { closest } from '@vidgen/protocol/suggest';

export type ResolvedModels = { ok: true; ids: string[]; notes: string[] } | { ok: false; problem: string };

/**
 * `--models a,b` checked against the catalog the server serves. An entitlement to an id the catalog
 * does not have grants nothing, silently, so an unknown name is refused; an alias becomes its model's
 * id, because entitlements are kept and checked by id.
 */
export function resolveModelIds(raw: string, names: ModelNames): ResolvedModels {
  const requested = raw.split(',').map((m) => m.trim()).filter(Boolean);
  if (requested.length === 0) return { ok: false, problem: '--models needs at least one model id (leave it out for every model)' };
  const unknown = requested.filter((name) => names.idOf(name) === undefined);
  if (unknown.length > 0) {
    const guesses = unknown.map((name) => {
      const guess = closest(name, names.ids);
      return guess ? `'${name}' (did you mean '${guess}'?)` : `'${name}'`;
    });
    return {
      ok: false,
      problem: `unknown model${unknown.length > 1 ? 's' : ''} ${guesses.join(', ')} in --models. ${capitalize(names.source)} offers: ${names.ids.join(', ')}`,
    };
  }
  const notes: string[] = [];
  const ids = requested.map((name) => {
    const id = names.idOf(name) as string;
    if (id !== name) notes.push(`'${name}' is an alias of '${id}'; the account is given '${id}'`);
    return id;
  });
  return { ok: true, ids: [...new Set(ids)], notes };
}

/** An account's models for people: its ids, or that it may use the whole catalog. */
export function describeModels(models: readonly string[] | null): string {
  return models === null ? 'every model' : models.length === 0 ? 'no model' : models.join(',');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
