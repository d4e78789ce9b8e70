import type { FastifyInstance } from 'fastify';
import { ModelList, ModelObject } from '@vidgen/protocol';
import type { TaskService } from '../../engine/task-service.ts';
import type { ModelEntry } from '../../catalog/model-catalog.ts';
import { NotFound } from '../../errors.ts';
import { pricingOf } from '../../billing/prices.ts';
import { groupPricing, type PriceGroup } from '../../billing/price-groups.ts';
import type { Account } from '../../store/account-store.ts';
import { callerOf } from '../authenticate.ts';
import type { Dialect } from '../dialects/dialect.ts';
import { described, errorResponses, idParams } from '../route-schemas.ts';

const tags = ['Models'];

/**
 * A model's entry, then one entry per alias: clients written for another service look for their
 * own id in `data[].id`, so an alias is a model of its own there, naming its target.
 */
export function modelObjects(m: ModelEntry, dialects: readonly Dialect[]): ModelObject[] {
  const model = toModelObject(m, dialects);
  return [model, ...m.aliases.map((alias) => ({ ...model, id: alias, aliases: [], alias_of: m.id }))];
}

export function toModelObject(m: ModelEntry, dialects: readonly Dialect[]): ModelObject {
  return {
    id: m.id,
    object: 'model',
    created: m.created,
    owned_by: m.ownedBy,
    family: m.family,
    // A model's create endpoint is its dialect's generation route, the first it declares.
    endpoint: dialects.find((d) => d.family === m.family)?.submits[0]?.path ?? '',
    resolution: m.resolution,
    resolutions: m.resolutions,
    durations: m.durations,
    aspect_ratios: m.aspectRatios,
    requires_image: m.requiresImage,
    inputs: { ...m.inputs, exclusive: m.inputs.exclusive.map((group) => [...group]) },
    capabilities: { ...m.capabilities },
    aliases: m.aliases,
    sound: m.sound.mode === 'optional' ? { mode: 'optional', default: m.sound.default } : { mode: m.sound.mode },
    ...withPricing(m),
  };
}

export interface ModelListDeps {
  tasks: TaskService;
  dialects: readonly Dialect[];
  /** The caller's price group: its prices are shown instead of the catalog's. */
  prices?: { priceGroupOf(account: Account): Promise<PriceGroup | undefined> };
}

/** The models an account may use, each with its price group's prices (the MCP endpoint lists them too). */
export function modelsOfCaller(deps: ModelListDeps): (account: Account) => Promise<ModelObject[]> {
  return async (account) => {
    const models = deps.tasks.modelsFor(account).flatMap((m) => modelObjects(m, deps.dialects));
    const group = await deps.prices?.priceGroupOf(account);
    if (!group) return models;
    return models.map((m) => {
      const pricing = groupPricing(group, m.alias_of ?? m.id, m.pricing);
      return pricing ? { ...m, pricing } : m;
    });
  };
}

/** `GET /v1/models` lists only what the caller's account may use. */
export function registerModelRoutes(app: FastifyInstance, deps: ModelListDeps) {
  const callerModels = modelsOfCaller(deps);
  const listSchema = {
    operationId: 'listModels',
    summary: 'Models the caller may use',
    tags,
    response: { 200: described(ModelList, 'The models of the caller’s account'), ...errorResponses() },
  };
  app.get(
    '/v1/models',
    { schema: listSchema },
    async (request): Promise<ModelList> => ({
      object: 'list',
      data: await callerModels(callerOf(request).account),
    }),
  );

  const getSchema = {
    operationId: 'getModel',
    summary: 'One model, by id or alias',
    tags,
    params: idParams('id'),
    response: { 200: described(ModelObject, 'The model'), ...errorResponses() },
  };
  app.get<{ Params: { id: string } }>('/v1/models/:id', { schema: getSchema }, async (request) => {
    const models = await callerModels(callerOf(request).account);
    const model = models.find((m) => m.id === request.params.id);
    if (!model) throw new NotFound('model', request.params.id);
    return model;
  });
}

function withPricing(m: ModelEntry): Pick<ModelObject, 'pricing'> {
  const pricing = pricingOf(m);
  return pricing ? { pricing } : {};
}
