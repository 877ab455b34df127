import { ACCOUNTS } from '@wallet/contracts';
import { type Db } from '@wallet/kit';
import type { TransferScope } from './transfers-store';
import { type DigestedRecords, entryTermSql, lineTermSql } from '@wallet/money-commands';

/*
 * Transfers digested where they are stored, for a full run's check 3: a full run reads every
 * transfer there is, and digesting them in PostgreSQL is several times faster than bringing each
 * row over to build its posting command. The terms are transferPostCommand's lines, on the same
 * conditions; a property test (test/transfer-digests.suite.ts) holds the two together. Were they
 * ever to differ, a full run would only compare that scope's transfers one by one.
 */

const line = (direction: 'DR' | 'CR', accountName: string, walletId: string, amount: string): string =>
  lineTermSql({
    entryId: 't.journal_entry_id',
    direction: `'${direction}'`,
    accountName,
    walletId,
    currencyCode: 't.currency_code',
    amount,
  });

/** One term per line of the entry, null for a line left out (a zero fee or commission), as transferPostCommand leaves it out. */
const TERMS = [
  entryTermSql({
    id: 't.journal_entry_id',
    tenantId: 't.tenant_id',
    environment: 't.environment',
    kind: 'n.kind',
    referenceType: 'n.kind',
    referenceId: 't.id',
  }),
  line('DR', 'n.wallet_prefix || fw.owner_id', 't.from_wallet_id', 't.amount'),
  `CASE WHEN t.fee > 0 THEN ${line('DR', 'n.wallet_prefix || fw.owner_id', 't.from_wallet_id', 't.fee')} END`,
  line('CR', 'n.wallet_prefix || tw.owner_id', 't.to_wallet_id', 't.amount'),
  `CASE WHEN t.fee > 0 THEN ${line('CR', 'n.fee_revenue', 'NULL', 't.fee')} END`,
  `CASE WHEN t.commission > 0 THEN ${line('DR', 'n.fee_revenue', 'NULL', 't.commission')} END`,
  `CASE WHEN t.commission > 0 THEN ${line('CR', 'n.platform_commission', 'NULL', 't.commission')} END`,
];

/** The names transferPostCommand gives: its kind and reference type, the wallet accounts' prefix (an owner's id follows it), the system accounts. */
const NAMES = ['transfer', ACCOUNTS.wallet.prefix, ACCOUNTS.feeRevenue.name, ACCOUNTS.platformCommission.name];

/**
 * A scope's transfers after a seq, in seq order, at most `limit`, digested: a completed one adds
 * its entry's terms, a pending one is not done, a failed one posts nothing.
 */
export async function transferDigestsAfter(db: Db, scope: TransferScope, afterSeq: string, limit: number): Promise<DigestedRecords> {
  // One sum per term, not a sum of each row's terms: a row's terms could overflow bigint, and a numeric per row costs more than its hashing.
  const digest = TERMS.map((term) => `coalesce(sum(${term}) FILTER (WHERE t.posts), 0)`).join(' + ');
  const result = await db.raw(
    `WITH n AS (SELECT ?::text AS kind, ?::text AS wallet_prefix, ?::text AS fee_revenue, ?::text AS platform_commission),
     t AS (
       SELECT seq, id, tenant_id, environment, from_wallet_id, to_wallet_id, currency_code, amount, fee, commission, status, journal_entry_id,
              status = 'completed' AND journal_entry_id IS NOT NULL AS posts
         FROM transfers WHERE tenant_id = ? AND environment = ? AND seq > ? ORDER BY seq LIMIT ?
     )
     SELECT count(*)::int AS records, max(t.seq)::text AS "lastSeq", count(*) FILTER (WHERE t.posts)::int AS entries, (${digest})::text AS digest,
            coalesce(array_agg(t.id ORDER BY t.seq) FILTER (WHERE t.status = 'pending' OR (t.status = 'completed' AND NOT t.posts)), '{}') AS "notDone"
       FROM t JOIN wallets fw ON fw.id = t.from_wallet_id JOIN wallets tw ON tw.id = t.to_wallet_id CROSS JOIN n`,
    [...NAMES, scope.tenantId, scope.environment, afterSeq, limit],
  );
  const row = result.rows[0] as { records: number; lastSeq: string | null; entries: number; digest: string; notDone: string[] };
  return { records: row.records, lastSeq: row.lastSeq, digest: { entries: row.entries, digest: row.digest }, notDone: row.notDone };
}
