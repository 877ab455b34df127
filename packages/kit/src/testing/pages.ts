import type pg from 'pg';
import type { ListSort } from '@wallet/contracts/common';
import { type ListPosition, pageInOrder, type SeqRows } from '../cursor';
import type { Db } from '../db';

/** Every page of a list in the order `sort` names, first to last, as pageInOrder answers them: each page's ids, empty pages included. */
export async function idsPageByPage(
  read: (after: ListPosition | undefined) => Promise<SeqRows<{ seq: string; id: string }>>,
  limit: number,
  sort?: ListSort,
): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await pageInOrder({ cursor, limit, sort }, read, (record) => record.id);
    pages.push(page.data);
    if (page.nextCursor === null) return pages;
    cursor = page.nextCursor;
  }
}

/**
 * The plan PostgreSQL makes for each statement `run` sends through `db` (EXPLAIN, as text), in
 * order: a test shows a list reads an index and not the history above it.
 */
export async function queryPlans(db: Db, run: () => Promise<unknown>): Promise<string[]> {
  const sent: Array<{ sql: string; bindings: readonly unknown[] }> = [];
  const listener = (query: { sql: string; bindings?: readonly unknown[] }) => sent.push({ sql: query.sql, bindings: query.bindings ?? [] });
  db.on('query', listener);
  try {
    await run();
  } finally {
    db.off('query', listener);
  }
  // The statements as sent ($1, $2, ...), on one of the pool's connections.
  const connection = (await db.client.acquireConnection()) as pg.Client;
  try {
    const plans: string[] = [];
    for (const query of sent) {
      const result = await connection.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query.sql}`, [...query.bindings]);
      plans.push(result.rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    return plans;
  } finally {
    await db.client.releaseConnection(connection);
  }
}
