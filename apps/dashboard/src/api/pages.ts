import type { Page } from '@wallet/contracts';

/** Reads one page of a list: the API's `limit` and `cursor`, and the query's abort signal. */
export type PageFetcher<Row> = (page: { cursor: string | undefined; limit: number }, signal: AbortSignal) => Promise<Page<Row>>;

/** Requests a screen page may make to fill itself: each answer tests at most 10,000 records (the API's bound), so a page reads at most 50,000. */
const FILLING_REQUESTS_PER_PAGE = 5;

/**
 * A list whose pages may come back short, even empty, while its cursor goes on (a filter no
 * index serves: each request tests a bounded number of records): asks again from the cursor until
 * the page is full, the list ends, or `requestsMax` requests were made, so a screen shows a full
 * page where the API can give one at a bounded cost. The cursor returned goes on from the last answer.
 */
export function fillingPages<Row>(fetchPage: PageFetcher<Row>, requestsMax = FILLING_REQUESTS_PER_PAGE): PageFetcher<Row> {
  return async (page, signal) => {
    const rows: Row[] = [];
    let cursor = page.cursor;
    for (let request = 1; ; request += 1) {
      const answer = await fetchPage({ cursor, limit: page.limit - rows.length }, signal);
      rows.push(...answer.data);
      if (answer.nextCursor === null || rows.length >= page.limit || request >= requestsMax)
        return { data: rows, nextCursor: answer.nextCursor };
      cursor = answer.nextCursor;
    }
  };
}
