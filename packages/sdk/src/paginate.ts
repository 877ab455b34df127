import type { RequestOptions } from './client';

export interface CursorPage<Item> {
  data: Item[];
  nextCursor: string | null;
}

/** A list method: takes a query (filters, page size, cursor), answers one page. */
export type ListFunction<Query, Item> = (query: Query, options?: RequestOptions) => Promise<CursorPage<Item>>;

/**
 * Walks a list page by page, following `nextCursor` until the server says there is no more.
 * `query` holds the filters and page size; its own cursor, if any, is where the walk starts.
 */
export async function* paginate<Query, Item>(
  list: ListFunction<Query, Item>,
  query?: NoInfer<NonNullable<Query>>,
  options?: RequestOptions,
): AsyncGenerator<CursorPage<Item>, void, undefined> {
  let cursor = (query as { cursor?: string } | undefined)?.cursor;
  const seen = new Set<string>();
  for (;;) {
    const page = await list({ ...query, cursor } as Query, options);
    yield page;
    if (page.nextCursor === null) return;
    // A cursor the walk has already followed would loop forever over the same pages.
    if (seen.has(page.nextCursor)) throw new Error(`The list returned cursor ${JSON.stringify(page.nextCursor)} twice`);
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}

/** Like paginate, one item at a time. */
export async function* paginateItems<Query, Item>(
  list: ListFunction<Query, Item>,
  query?: NoInfer<NonNullable<Query>>,
  options?: RequestOptions,
): AsyncGenerator<Item, void, undefined> {
  for await (const page of paginate(list, query, options)) yield* page.data;
}
