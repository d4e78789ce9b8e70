import { type ModelNames, resolveModelNames } from '../catalog/model-catalog.ts';
import { closest } from '@vidgen/protocol/suggest';

export type ResolvedModels = { ok: true; ids: string[]; notes: string[] } | { ok: false; problem: string };

/** `--models a,b` checked against the catalog the server serves (resolveModelNames says why). */
export function resolveModelIds(raw: string, names: ModelNames): ResolvedModels {
  const requested = raw
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (requested.length === 0)
    return { ok: false, problem: '--models needs at least one model id (leave it out for every model)' };
  const { ids, unknown, aliases } = resolveModelNames(requested, names);
  if (unknown.length > 0) {
    const guesses = unknown.map((name) => {
      const guess = closest(name, names.ids);
      return guess ? `'${name}' (did you mean '${guess}'?)` : `'${name}'`;
    });
    return {
      ok: false,
      problem:
        `unknown model${unknown.length > 1 ? 's' : ''} ${guesses.join(', ')} in --models. ` +
        `${capitalize(names.source)} offers: ${names.ids.join(', ')}`,
    };
  }
  return {
    ok: true,
    ids,
    notes: aliases.map((a) => `'${a.name}' is an alias of '${a.id}'; the account is given '${a.id}'`),
  };
}

/** An account's models for people: its ids, or that it may use the whole catalog. */
export function describeModels(models: readonly string[] | null): string {
  return models === null ? 'every model' : models.length === 0 ? 'no model' : models.join(',');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
