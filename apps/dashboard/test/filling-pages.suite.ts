import fc from 'fast-check';
import type { Page } from '@wallet/contracts';
import { fillingPages, type PageFetcher } from '../src/api/pages';

/**
 * A list as the journal pages it under a filter: each request tests at most `examine` entries,
 * newest first, and answers the matches with a cursor where it stopped (short pages, even empty).
 */
function boundedList(
  entries: readonly number[],
  matches: (entry: number) => boolean,
  examine: number,
): { fetch: PageFetcher<number>; requests: () => number } {
  let requests = 0;
  const fetch: PageFetcher<number> = async ({ cursor, limit }) => {
    requests += 1;
    const start = cursor === undefined ? 0 : Number(cursor);
    const found: number[] = [];
    let index = start;
    for (; index < entries.length && index < start + examine && found.length <= limit; index += 1) {
      if (matches(entries[index] as number)) found.push(entries[index] as number);
    }
    const page: Page<number> =
      found.length > limit
        ? { data: found.slice(0, limit), nextCursor: String(entries.indexOf(found[limit - 1] as number) + 1) }
        : { data: found, nextCursor: index < entries.length ? String(index) : null };
    return page;
  };
  return { fetch, requests: () => requests };
}

async function everyPage(fetch: PageFetcher<number>, limit: number): Promise<number[][]> {
  const pages: number[][] = [];
  let cursor: string | undefined;
  do {
    const page = await fetch({ cursor, limit }, new AbortController().signal);
    pages.push(page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

describe('a screen page filled from short pages', () => {
  it('shows every match once, in order, each page full but the last or the ones that ran out of requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { maxLength: 200 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 4 }),
        async (matching, examine, limit, requestsMax) => {
          const entries = matching.map((_, index) => index);
          const list = boundedList(entries, (entry) => matching[entry] === true, examine);
          const pages = await everyPage(fillingPages(list.fetch, requestsMax), limit);
          expect(pages.flat()).toEqual(entries.filter((entry) => matching[entry]));
          for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });

  it('fills a page the API answered short, and stops after its requests', async () => {
    const entries = Array.from({ length: 100 }, (_, index) => index);
    const list = boundedList(entries, (entry) => entry % 10 === 9, 10);
    const page = await fillingPages(list.fetch, 3)({ cursor: undefined, limit: 5 }, new AbortController().signal);
    expect(page).toEqual({ data: [9, 19, 29], nextCursor: '30' });
    expect(list.requests()).toBe(3);
    const full = await fillingPages(list.fetch, 10)({ cursor: undefined, limit: 2 }, new AbortController().signal);
    expect(full.data).toEqual([9, 19]);
  });
});
