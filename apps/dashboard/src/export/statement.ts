import { PAGE_LIMIT_MAX, walletRoutes } from '@wallet/contracts';
import type { ApiClient } from '../api/client';
import type { StatementLine } from './csv';

/** Every line of a wallet's statement, walking its pages through the API (the largest page size, newest first). */
export async function fetchWholeStatement(client: ApiClient, walletId: string, signal?: AbortSignal): Promise<StatementLine[]> {
  const lines: StatementLine[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.call(walletRoutes.entries, { params: { id: walletId }, query: { limit: PAGE_LIMIT_MAX, cursor }, signal });
    lines.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return lines;
}
