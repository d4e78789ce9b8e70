import type { ListResponse } from '../types.ts';

/**
 * One page of a cursor listing (`after` = the last id seen). Iterating it with `for await`
 * walks every later page too, as openai-node's pages do.
 */
export class Page<T> implements AsyncIterable<T> {
  readonly object = 'list';
  readonly data: T[];
  readonly has_more: boolean;
  readonly last_id: string | null;

  constructor(
    body: ListResponse<T>,
    private readonly fetchAfter: (after: string) => Promise<Page<T>>,
  ) {
    this.data = Array.isArray(body?.data) ? body.data : [];
    this.has_more = body?.has_more === true;
    this.last_id = body?.last_id ?? null;
  }

  hasNextPage(): boolean {
    return this.has_more && this.last_id !== null && this.data.length > 0;
  }

  nextPage(): Promise<Page<T>> {
    if (!this.hasNextPage()) throw new Error('No next page.');
    return this.fetchAfter(this.last_id!);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page: Page<T> = this;
    for (;;) {
      yield* page.data;
      if (!page.hasNextPage()) return;
      page = await page.nextPage();
    }
  }
}
