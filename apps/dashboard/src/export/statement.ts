import { type CreatedRange, EARLIEST_INSTANT_MS, PAGE_LIMIT_MAX, type Wallet, walletRoutes } from '@wallet/contracts';
import type { ApiClient } from '../api/client';
import type { StatementLine } from './csv';
import type { StatementDocument } from './statement-pdf';

/** Every line of a wallet's statement in a period (all of it by default), walking its pages (the largest page size, newest first). */
export async function fetchWholeStatement(
  client: ApiClient,
  walletId: string,
  signal?: AbortSignal,
  period: CreatedRange = {},
): Promise<StatementLine[]> {
  const lines: StatementLine[] = [];
  let cursor: string | undefined;
  do {
    const query = { ...period, limit: PAGE_LIMIT_MAX, cursor };
    const page = await client.call(walletRoutes.entries, { params: { id: walletId }, query, signal });
    lines.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return lines;
}

/** The moment just before `instant` (stamps are whole milliseconds): the balance then is the one before anything at `instant`. */
function justBefore(instant: string): string {
  return new Date(Math.max(Date.parse(instant) - 1, EARLIEST_INSTANT_MS)).toISOString();
}

/**
 * A statement to print: its lines, and the opening and closing balances as the ledger answers
 * them (the balance just before the period, and just before its end or now), never worked out
 * here.
 */
export async function fetchStatementDocument(
  client: ApiClient,
  wallet: Wallet,
  period: CreatedRange,
  signal?: AbortSignal,
): Promise<StatementDocument> {
  const generatedAt = new Date().toISOString();
  // An open end is the moment of printing, for the lines and the closing balance alike: a line
  // posted while they are read is in neither, so they agree.
  const until = period.createdTo ?? new Date(Date.parse(generatedAt) + 1).toISOString();
  const balanceAt = async (at: string) =>
    (await client.call(walletRoutes.balance, { params: { id: wallet.id }, query: { at }, signal })).balance;
  const [lines, opening, closing] = await Promise.all([
    fetchWholeStatement(client, wallet.id, signal, { createdFrom: period.createdFrom, createdTo: until }),
    balanceAt(period.createdFrom ? justBefore(period.createdFrom) : new Date(EARLIEST_INSTANT_MS).toISOString()),
    balanceAt(justBefore(until)),
  ]);
  return { wallet, period, opening, closing, lines, generatedAt };
}
