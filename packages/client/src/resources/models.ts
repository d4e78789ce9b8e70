import type { ModelList, ModelObject, RequestOptions } from '../types.ts';
import type { ClientCore } from './client-core.ts';

/** `GET /v1/models`: what this key's account may use, with each model's family and limits. */
export class Models {
  constructor(private readonly core: ClientCore) {}

  async list(opts: RequestOptions = {}): Promise<ModelList> {
    return (await this.core.transport.request<ModelList>({ method: 'GET', path: '/v1/models', ...opts })).data;
  }

  async retrieve(id: string, opts: RequestOptions = {}): Promise<ModelObject> {
    return (
      await this.core.transport.request<ModelObject>({
        method: 'GET',
        path: `/v1/models/${encodeURIComponent(id)}`,
        ...opts,
      })
    ).data;
  }
}
