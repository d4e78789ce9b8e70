import type { FastifyInstance } from 'fastify';
import { ModelList, ModelObject } from '@vidgen/protocol';
import type { TaskService } from '../../engine/task-service.ts';
import type { ModelEntry } from '../../catalog/model-catalog.ts';
import { NotFound } from '../../errors.ts';
import { pricingOf } from '../../billing/prices.ts';
import { callerOf } from '../authenticate.ts';
import type { Dialect } from '../dialects/dialect.ts';
import { described, errorResponses, idParams } from '../route-schemas.ts';

const tags = ['Models'];

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
    durations: m.durations,
    aspect_ratios: m.aspectRatios,
    requires_image: m.requiresImage,
    capabilities: { ...m.capabilities },
    aliases: m.aliases,
    ...withPricing(m),
  };
}

/** `GET /v1/models` lists only what the caller's account may use. */
export function registerModelRoutes(app: FastifyInstance, deps: { tasks: TaskService; dialects: readonly Dialect[] }) {
  const listSchema = {
    operationId: 'listModels', summary: 'Models the caller may use', tags,
    response: { 200: described(ModelList, 'The models of the caller’s account'), ...errorResponses() },
  };
  app.get('/v1/models', { schema: listSchema }, async (request): Promise<ModelList> => ({
    object: 'list',
    data: deps.tasks.modelsFor(callerOf(request).account).map((m) => toModelObject(m, deps.dialects)),
  }));

  const getSchema = {
    operationId: 'getModel', summary: 'One model, by id or alias', tags, params: idParams('id'),
    response: { 200: described(ModelObject, 'The model'), ...errorResponses() },
  };
  app.get<{ Params: { id: string } }>('/v1/models/:id', { schema: getSchema }, async (request) => {
    const model = deps.tasks.modelsFor(callerOf(request).account).find((m) => m.id === request.params.id || m.aliases.includes(request.params.id));
    if (!model) throw new NotFound('model', request.params.id);
    return toModelObject(model, deps.dialects);
  });
}

function withPricing(m: ModelEntry): Pick<ModelObject, 'pricing'> {
  const pricing = pricingOf(m);
  return pricing ? { pricing } : {};
}
