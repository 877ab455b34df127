import { pageBySeq, type SeqRows } from '../cursor';

/** Every page of a seq-ordered list, first to last, as pageBySeq answers them: each page's ids, empty pages included. */
export async function idsPageByPage(read: (beforeSeq: string | undefined) => Promise<SeqRows<{ seq: string; id: string }>>, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await pageBySeq({ cursor, limit }, read, (record) => record.id);
    pages.push(page.data);
    if (page.nextCursor === null) return pages;
    cursor = page.nextCursor;
  }
}
