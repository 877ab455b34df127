import { type Direction, formatAmount, type LedgerAccount, type JournalKind } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import type { TenantScope } from '../journal/journal-scope';

interface AccountRow {
  id: string;
  name: string;
  currency_code: string;
  normal_side: Direction;
  wallet_id: string | null;
  status: 'active' | 'frozen';
  balance: string;
  created_at: Date;
}

function toAccount(row: AccountRow): LedgerAccount {
  return {
    id: row.id,
    name: row.name,
    currencyCode: row.currency_code,
    normalSide: row.normal_side,
    walletId: row.wallet_id,
    status: row.status,
    balance: formatAmount(row.balance, row.currency_code),
    createdAt: row.created_at.toISOString(),
  };
}

export async function listAccounts(
  db: Db,
  scope: TenantScope,
  filter: {
    currencyCode?: string | undefined;
    name?: string | undefined;
    walletId?: string | undefined;
    walletIds?: string[] | undefined;
    beforeId?: string | undefined;
    limit: number;
  },
): Promise<LedgerAccount[]> {
  const query = db('accounts')
    .where({ tenant_id: scope.tenantId, environment: scope.environment })
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (filter.currencyCode) query.where('currency_code', filter.currencyCode);
  if (filter.name) query.where('name', filter.name);
  if (filter.walletId) query.where('wallet_id', filter.walletId);
  if (filter.walletIds) query.whereIn('wallet_id', filter.walletIds);
  if (filter.beforeId) query.where('id', '<', filter.beforeId);
  const rows: AccountRow[] = await query;
  return rows.map(toAccount);
}

export async function findWalletAccount(db: Db, scope: TenantScope, walletId: string): Promise<LedgerAccount | null> {
  const row: AccountRow | undefined = await db('accounts')
    .where({ tenant_id: scope.tenantId, environment: scope.environment, wallet_id: walletId })
    .first();
  return row ? toAccount(row) : null;
}

/** Any tenant's account, for the platform operator. */
export async function findAccountAcrossTenants(db: Db, id: string): Promise<LedgerAccount | null> {
  const row: AccountRow | undefined = await db('accounts').where({ id }).first();
  return row ? toAccount(row) : null;
}

export interface StatementLineRow {
  journalEntryId: string;
  kind: JournalKind;
  direction: Direction;
  amount: string;
  balanceAfter: string;
  createdAt: string;
  seq: string;
  lineNo: number;
}

/**
 * A wallet account's lines, newest first, each with the balance right after it. The page of lines
 * is taken first and only its entries looked up: joined whole, the two seq orders invite a merge
 * join that walks the entries back from the newest, far for an account idle a long time.
 */
/** A statement's bounds along the account's lines: entries after `after`, up to `upTo` (each absent when unbounded). */
export interface StatementSeqs {
  after?: string;
  upTo?: string;
}

export async function statementLines(
  db: Db,
  account: LedgerAccount,
  page: { before?: { seq: string; lineNo: number } | undefined; limit: number; seqs?: StatementSeqs },
): Promise<StatementLineRow[]> {
  const lines = db('journal_lines')
    .where('account_num', db('accounts').select('num').where('id', account.id))
    .orderBy([
      { column: 'entry_seq', order: 'desc' },
      { column: 'line_no', order: 'desc' },
    ])
    .limit(page.limit + 1)
    .select('entry_seq', 'line_no', 'direction', 'amount', 'balance_after');
  if (page.before) {
    const { seq, lineNo } = page.before;
    lines.whereRaw('(entry_seq, line_no) < (?::bigint, ?::smallint)', [seq, lineNo]);
  }
  if (page.seqs?.upTo !== undefined) lines.where('entry_seq', '<=', page.seqs.upTo);
  if (page.seqs?.after !== undefined) lines.where('entry_seq', '>', page.seqs.after);
  const rows: Array<{
    entry_id: string;
    kind: JournalKind;
    direction: Direction;
    amount: string;
    balance_after: string;
    created_at: Date;
    entry_seq: string;
    line_no: number;
  }> = await db
    .from(lines.as('l'))
    .join('journal_entries as e', 'e.seq', 'l.entry_seq')
    .orderBy([
      { column: 'l.entry_seq', order: 'desc' },
      { column: 'l.line_no', order: 'desc' },
    ])
    .select('e.id as entry_id', 'e.kind', 'l.direction', 'l.amount', 'l.balance_after', 'e.created_at', 'l.entry_seq', 'l.line_no');
  return rows.map((row) => ({
    journalEntryId: row.entry_id,
    kind: row.kind,
    direction: row.direction,
    amount: formatAmount(row.amount, account.currencyCode),
    balanceAfter: formatAmount(row.balance_after, account.currencyCode),
    createdAt: row.created_at.toISOString(),
    seq: row.entry_seq,
    lineNo: row.line_no,
  }));
}
