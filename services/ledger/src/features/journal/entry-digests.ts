import type { JournalDigestsAfterBody, JournalEntryDigest, JournalEntryDigestBody, RecordDigest, RecordDigests } from '@wallet/contracts';
import { type Db, snapshotBounds } from '@wallet/kit';
import { entriesOfScopeBetweenSql, entriesOfScopeSql, type TenantScope } from './journal-scope';
import { entryTermSql as termOfEntry, lineTermSql as termOfLine } from '@wallet/money-commands';

/**
 * Digests of entries for check 3 (money-commands' entry-digest.ts says how a term is made, and makes
 * the same terms of what records meant to post): one term per entry and one per line, each a
 * `hashtextextended` of its fields joined by U+001F, summed.
 */

/** An entry's own term: id, tenant, environment, kind, reference type and id. */
export function entryTermSql(entry: string): string {
  return termOfEntry({
    id: `${entry}.id`,
    tenantId: `${entry}.tenant_id`,
    environment: `${entry}.environment`,
    kind: `${entry}.kind`,
    referenceType: `${entry}.reference_type`,
    referenceId: `${entry}.reference_id`,
  });
}

/** A line's term: its entry's id, direction, account name, wallet id (empty for none), currency, amount in its one spelling. */
export function lineTermSql(entryId: string, line: string, account: string): string {
  return termOfLine({
    entryId,
    direction: `${line}.direction`,
    accountName: `${account}.name`,
    walletId: `${account}.wallet_id`,
    currencyCode: `${account}.currency_code`,
    amount: `${line}.amount`,
  });
}

/** The digest of the entries with these ids, and of those among them naming a record of the type in the scope at or before upToSeq. */
export async function digestEntries(db: Db, body: JournalEntryDigestBody): Promise<JournalEntryDigest> {
  const { named } = body;
  const result = await db.raw(
    `WITH e AS MATERIALIZED (
       SELECT *, (seq <= ? AND reference_type = ? AND tenant_id = ? AND environment = ?) AS named FROM journal_entries WHERE id = ANY(?::text[])
     ),
     terms AS (
       SELECT e.named, true AS is_entry, ${entryTermSql('e')} AS term FROM e
       UNION ALL
       SELECT e.named, false, ${lineTermSql('e.id', 'l', 'a')} FROM e JOIN journal_lines l ON l.entry_seq = e.seq JOIN accounts a ON a.num = l.account_num
     )
     SELECT count(*) FILTER (WHERE is_entry)::int AS found_entries, coalesce(sum(term), 0)::text AS found_digest,
            count(*) FILTER (WHERE is_entry AND named)::int AS named_entries, coalesce(sum(term) FILTER (WHERE named), 0)::text AS named_digest
       FROM terms`,
    [named.upToSeq, named.referenceType, named.tenantId, named.environment, [...new Set(body.ids)]],
  );
  const row = result.rows[0] as { found_entries: number; found_digest: string; named_entries: number; named_digest: string };
  return {
    found: { entries: row.found_entries, digest: row.found_digest },
    named: { entries: row.named_entries, digest: row.named_digest },
  };
}

/** How long a digest waits for the transactions that may still commit below the seq it chose. */
const FINAL_WAIT_MS = 30_000;

/**
 * The newest seq now, once nothing below it can still commit (every transaction running when it
 * was read has ended: see the kit's high-water), or after FINAL_WAIT_MS (a digest of what was not
 * final yet then differs, and the caller compares record by record); `final` says which.
 */
export async function finalTop(db: Db, scope: TenantScope | null): Promise<{ seq: string; final: boolean }> {
  const chosen = await db.transaction(
    async (tx) => {
      const snapshot = await snapshotBounds(tx);
      const scoped = scope ? entriesOfScopeSql('j', scope) : null;
      const top = await tx.raw(
        `SELECT coalesce(max(seq), 0)::text AS seq FROM journal_entries j ${scoped ? `WHERE ${scoped.sql}` : ''}`,
        scoped?.bindings ?? [],
      );
      return { seq: (top.rows[0] as { seq: string }).seq, xmax: snapshot.xmax };
    },
    { isolationLevel: 'repeatable read' },
  );
  for (const deadline = Date.now() + FINAL_WAIT_MS; Date.now() < deadline;) {
    if (BigInt((await snapshotBounds(db)).xmin) >= BigInt(chosen.xmax)) return { seq: chosen.seq, final: true };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { seq: chosen.seq, final: false };
}

export async function finalTopSeq(db: Db, scope: TenantScope | null): Promise<string> {
  return (await finalTop(db, scope)).seq;
}

/** Digests per scope and record type, summed from rows a statement grouped. */
export class RecordDigestTotals {
  private readonly totals = new Map<string, RecordDigest>();

  add(rows: readonly RecordDigest[]): void {
    for (const row of rows) {
      const key = `${row.tenantId}|${row.environment}|${row.referenceType}`;
      const before = this.totals.get(key);
      this.totals.set(
        key,
        before
          ? { ...before, entries: before.entries + row.entries, digest: (BigInt(before.digest) + BigInt(row.digest)).toString() }
          : row,
      );
    }
  }

  value(throughSeq: string): RecordDigests {
    return { throughSeq, digests: [...this.totals.values()] };
  }
}

/** Per scope and record type, the digests of the entries after `afterSeq` through the newest final seq: the entries a full run's pass did not reach. */
export async function digestsAfter(db: Db, body: JournalDigestsAfterBody): Promise<RecordDigests> {
  const scope =
    body.tenantId !== undefined && body.environment !== undefined ? { tenantId: body.tenantId, environment: body.environment } : null;
  const throughSeq = await finalTopSeq(db, scope);
  const scoped = scope
    ? entriesOfScopeBetweenSql('j', scope, body.afterSeq, throughSeq)
    : { sql: 'j.seq > ? AND j.seq <= ?', bindings: [body.afterSeq, throughSeq] };
  const range = `(SELECT * FROM journal_entries j WHERE ${scoped.sql})`;
  const bindings = scoped.bindings;
  const result = await db.raw(
    `WITH e AS MATERIALIZED ${range}
     SELECT tenant_id AS "tenantId", environment, reference_type AS "referenceType", sum(entries)::int AS entries, sum(digest)::text AS digest FROM (
       SELECT e.tenant_id, e.environment, e.reference_type, count(*) AS entries, sum(${entryTermSql('e')}) AS digest FROM e GROUP BY 1, 2, 3
       UNION ALL
       SELECT e.tenant_id, e.environment, e.reference_type, 0, sum(${lineTermSql('e.id', 'l', 'a')})
         FROM e JOIN journal_lines l ON l.entry_seq = e.seq JOIN accounts a ON a.num = l.account_num GROUP BY 1, 2, 3
     ) d GROUP BY 1, 2, 3`,
    bindings,
  );
  return { throughSeq, digests: result.rows as RecordDigest[] };
}
