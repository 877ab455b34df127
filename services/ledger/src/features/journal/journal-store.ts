import { type Direction, type Environment, formatAmount, type JournalEntry, type JournalEntryDigest, type JournalEntryDigestBody, type JournalKind, type JournalReferencesCount } from '@wallet/contracts';
import { type Db, type SnapshotBounds, snapshotBounds } from '@wallet/kit';

/**
 * journal_entries_scope_seq is keyed by this hash of an entry's tenant and environment (4 bytes
 * where the two columns take 35), then seq: a query names it to range-scan one scope's entries in
 * seq order. The columns are still compared, so two scopes sharing a hash only cost rows read.
 */
export function scopeKeySql(alias: string): string {
  return `hashtext(${alias}.tenant_id || '/' || ${alias}.environment)`;
}

/** One scope's entries, as a condition on journal_entries_scope_seq's key and the columns themselves, with its bindings. */
export function entriesOfScopeSql(alias: string, scope: TenantScope): { sql: string; bindings: string[] } {
  return {
    sql: `${scopeKeySql(alias)} = hashtext(?::text || '/' || ?::text) AND ${alias}.tenant_id = ? AND ${alias}.environment = ?`,
    bindings: [scope.tenantId, scope.environment, scope.tenantId, scope.environment],
  };
}

/** Every read of tenant data is bounded by one tenant and one environment. */
export interface TenantScope {
  tenantId: string;
  environment: Environment;
}

interface EntryRow {
  seq: string;
  id: string;
  tenant_id: string;
  environment: Environment;
  kind: JournalKind;
  reference_type: string;
  reference_id: string;
  reverses_entry_id: string | null;
  created_at: Date;
}

interface LineRow {
  entry_seq: string;
  line_no: number;
  account_id: string;
  account_name: string;
  wallet_id: string | null;
  direction: Direction;
  amount: string;
  currency_code: string;
}

export interface JournalFilter {
  kind?: string | undefined;
  accountName?: string | undefined;
  walletId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  beforeSeq?: string | undefined;
  limit: number;
}

/** The lines of the entries with these seqs, by entry seq; a line's currency is its account's. */
async function linesOf(db: Db, entrySeqs: string[]): Promise<Map<string, LineRow[]>> {
  const byEntry = new Map<string, LineRow[]>();
  if (entrySeqs.length === 0) return byEntry;
  const rows: LineRow[] = await db('journal_lines as l')
    .join('accounts as a', 'a.num', 'l.account_num')
    .whereIn('l.entry_seq', entrySeqs)
    .orderBy([{ column: 'l.entry_seq' }, { column: 'l.line_no' }])
    .select(db.raw('l.entry_seq::text AS entry_seq'), 'l.line_no', 'a.id as account_id', 'a.name as account_name', 'a.wallet_id', 'l.direction', 'l.amount', 'a.currency_code');
  for (const row of rows) byEntry.set(row.entry_seq, [...(byEntry.get(row.entry_seq) ?? []), row]);
  return byEntry;
}

function toEntry(row: EntryRow, lines: LineRow[]): JournalEntry {
  return {
    id: row.id,
    kind: row.kind,
    tenantId: row.tenant_id,
    environment: row.environment,
    reference: { type: row.reference_type, id: row.reference_id },
    reversesEntryId: row.reverses_entry_id,
    lines: lines.map((line) => ({
      accountId: line.account_id,
      accountName: line.account_name,
      walletId: line.wallet_id,
      direction: line.direction,
      amount: formatAmount(line.amount, line.currency_code),
      currencyCode: line.currency_code,
    })),
    createdAt: row.created_at.toISOString(),
  };
}

/** The entries a list may show: one tenant and environment, or for the platform operator any of them. */
interface EntryBounds {
  tenantId?: string | undefined;
  environment?: Environment | undefined;
}

export interface SystemJournalFilter extends JournalFilter, EntryBounds {
  referenceType?: string | undefined;
  referenceId?: string | undefined;
}

/** Newest first; returns one more row than asked so the caller knows whether a next page exists. */
export async function listEntries(db: Db, scope: TenantScope, filter: JournalFilter): Promise<Array<JournalEntry & { seq: string }>> {
  return selectEntries(db, { ...filter, tenantId: scope.tenantId, environment: scope.environment });
}

/** As listEntries, for the platform operator: every tenant and environment unless the filter names one. */
export async function listEntriesAcrossTenants(db: Db, filter: SystemJournalFilter): Promise<Array<JournalEntry & { seq: string }>> {
  return selectEntries(db, filter);
}

async function selectEntries(db: Db, filter: SystemJournalFilter): Promise<Array<JournalEntry & { seq: string }>> {
  const query = db('journal_entries as e')
    .orderBy('e.seq', 'desc')
    .limit(filter.limit + 1)
    .select('e.seq', 'e.id', 'e.tenant_id', 'e.environment', 'e.kind', 'e.reference_type', 'e.reference_id', 'e.reverses_entry_id', 'e.created_at');
  // Only an absent bound is lifted: an empty tenant id must match nothing, never everything.
  if (filter.tenantId !== undefined && filter.environment !== undefined) {
    const { sql, bindings } = entriesOfScopeSql('e', { tenantId: filter.tenantId, environment: filter.environment });
    query.whereRaw(sql, bindings);
  } else {
    if (filter.tenantId !== undefined) query.where('e.tenant_id', filter.tenantId);
    if (filter.environment !== undefined) query.where('e.environment', filter.environment);
  }
  if (filter.kind) query.where('e.kind', filter.kind);
  if (filter.referenceType) query.where('e.reference_type', filter.referenceType);
  if (filter.referenceId) query.where('e.reference_id', filter.referenceId);
  if (filter.from) query.where('e.created_at', '>=', filter.from);
  if (filter.to) query.where('e.created_at', '<=', filter.to);
  if (filter.beforeSeq) query.where('e.seq', '<', filter.beforeSeq);
  if (filter.accountName || filter.walletId) {
    query.whereExists(function linesOnAccount() {
      this.select(db.raw('1')).from('journal_lines as l').join('accounts as a', 'a.num', 'l.account_num').whereRaw('l.entry_seq = e.seq');
      if (filter.tenantId !== undefined) this.where('a.tenant_id', filter.tenantId);
      if (filter.environment !== undefined) this.where('a.environment', filter.environment);
      if (filter.accountName) this.where('a.name', filter.accountName);
      if (filter.walletId) this.where('a.wallet_id', filter.walletId);
    });
  }
  const rows: EntryRow[] = await query;
  const lines = await linesOf(db, rows.map((row) => row.seq));
  return rows.map((row) => ({ ...toEntry(row, lines.get(row.seq) ?? []), seq: row.seq }));
}

export async function findEntry(db: Db, scope: TenantScope, id: string): Promise<JournalEntry | null> {
  return selectEntry(db, { id, tenant_id: scope.tenantId, environment: scope.environment });
}

/** Any tenant's entry, for the platform operator. */
export async function findEntryAcrossTenants(db: Db, id: string): Promise<JournalEntry | null> {
  return selectEntry(db, { id });
}

async function selectEntry(db: Db, where: { id: string; tenant_id?: string; environment?: Environment }): Promise<JournalEntry | null> {
  const row: EntryRow | undefined = await db('journal_entries').where(where).first(db.raw('seq::text AS seq'), 'id', 'tenant_id', 'environment', 'kind', 'reference_type', 'reference_id', 'reverses_entry_id', 'created_at');
  if (!row) return null;
  const lines = await linesOf(db, [row.seq]);
  return toEntry(row, lines.get(row.seq) ?? []);
}

/** Entries by id, within the scope when one is given; ids the ledger does not have are left out. */
export async function findEntries(db: Db, scope: TenantScope | null, ids: readonly string[]): Promise<JournalEntry[]> {
  if (ids.length === 0) return [];
  const query = db('journal_entries').whereIn('id', [...new Set(ids)]);
  if (scope) query.where({ tenant_id: scope.tenantId, environment: scope.environment });
  const rows: EntryRow[] = await query.select(db.raw('seq::text AS seq'), 'id', 'tenant_id', 'environment', 'kind', 'reference_type', 'reference_id', 'reverses_entry_id', 'created_at');
  const lines = await linesOf(db, rows.map((row) => row.seq));
  return rows.map((row) => toEntry(row, lines.get(row.seq) ?? []));
}

export interface JournalReferenceRow {
  journalEntryId: string;
  tenantId: string;
  environment: Environment;
  kind: JournalKind;
  reference: { type: string; id: string };
  createdAt: string;
}

/**
 * Per scope, the entries naming a record of one type after that scope's seq, in seq order, each
 * scope a range scan on journal_entries_scope_seq from its mark (what lies after a mark is only
 * what is new, of every type, so no index per record type is kept for it); in one
 * repeatable-read snapshot whose bounds come along (see advanceHighWater).
 */
export async function referencesAfter(
  db: Db,
  filter: { referenceType: string; scopes: ReadonlyArray<TenantScope & { afterSeq: string }>; limitPerScope: number },
): Promise<{ data: Array<JournalReferenceRow & { seq: string }>; snapshot: SnapshotBounds }> {
  return db.transaction(
    async (tx) => {
      const snapshot = await snapshotBounds(tx);
      // Index probes only: compiling the statement (JIT) would cost more than running it.
      await tx.raw('SET LOCAL jit = off');
      const result = await tx.raw(
        `SELECT e.seq::text AS seq, e.id, e.tenant_id, e.environment, e.kind, e.reference_type, e.reference_id, e.created_at
           FROM unnest(?::text[], ?::text[], ?::bigint[]) WITH ORDINALITY AS s(tenant_id, environment, after_seq, n)
           CROSS JOIN LATERAL (
             SELECT * FROM journal_entries j
              WHERE ${scopeKeySql('j')} = ${scopeKeySql('s')} AND j.tenant_id = s.tenant_id AND j.environment = s.environment
                AND j.seq > s.after_seq AND j.reference_type = ?
              ORDER BY j.seq LIMIT ?
           ) e
          ORDER BY s.n, e.seq`,
        [filter.scopes.map((scope) => scope.tenantId), filter.scopes.map((scope) => scope.environment), filter.scopes.map((scope) => scope.afterSeq), filter.referenceType, filter.limitPerScope],
      );
      const rows = result.rows as Array<Omit<EntryRow, 'reverses_entry_id'>>;
      return {
        snapshot,
        data: rows.map((row) => ({
          seq: row.seq,
          journalEntryId: row.id,
          tenantId: row.tenant_id,
          environment: row.environment,
          kind: row.kind,
          reference: { type: row.reference_type, id: row.reference_id },
          createdAt: row.created_at.toISOString(),
        })),
      };
    },
    { isolationLevel: 'repeatable read' },
  );
}

/** md5's first 60 bits as a bigint: the term a digest sums (entryDigest in the kit makes the same in JavaScript). */
function hashTermSql(text: string): string {
  return `('x' || substr(md5(${text}), 1, 15))::bit(60)::bigint`;
}

/**
 * The digest of the entries with these ids: the sum of one term per entry (id, scope, kind,
 * reference) and one per line (entry id, direction, account name, wallet id, currency, amount in
 * its one spelling), so order does not matter and any edit of a field changes it. `named`: the
 * entries found that name a record of that type in that scope at or before upToSeq.
 */
export async function digestEntries(db: Db, body: JournalEntryDigestBody): Promise<JournalEntryDigest> {
  const sep = `E'\\x1f'`;
  const result = await db.raw(
    `WITH e AS MATERIALIZED (
       SELECT seq, id, tenant_id, environment, kind, reference_type, reference_id FROM journal_entries WHERE id = ANY(?::text[])
     )
     SELECT (SELECT count(*) FROM e)::int AS found,
            (SELECT count(*) FROM e WHERE e.seq <= ? AND e.reference_type = ? AND e.tenant_id = ? AND e.environment = ?)::int AS named,
            ((SELECT coalesce(sum(${hashTermSql(`concat_ws(${sep}, e.id, e.tenant_id, e.environment, e.kind, e.reference_type, e.reference_id)`)}), 0) FROM e)
             + (SELECT coalesce(sum(${hashTermSql(`concat_ws(${sep}, e.id, l.direction, a.name, coalesce(a.wallet_id, ''), a.currency_code, trim_scale(l.amount)::text)`)}), 0)
                  FROM e JOIN journal_lines l ON l.entry_seq = e.seq JOIN accounts a ON a.num = l.account_num))::text AS digest`,
    [[...new Set(body.ids)], body.named.upToSeq, body.named.referenceType, body.named.tenantId, body.named.environment],
  );
  return result.rows[0] as JournalEntryDigest;
}

/**
 * How many entries name a record of this type in this scope up to `upToSeq` (the newest seq when
 * none is given, and then no count: the caller counts at the end of its pass, once the
 * transactions in flight now, which may hold lower seqs, are over: see `snapshot`).
 */
export async function countNaming(db: Db, body: { referenceType: string; tenantId: string; environment: Environment; upToSeq?: string | undefined }): Promise<JournalReferencesCount> {
  return db.transaction(
    async (tx) => {
      const snapshot = await snapshotBounds(tx);
      if (body.upToSeq === undefined) {
        const top = await tx.raw(`SELECT coalesce(max(seq), 0)::text AS seq FROM journal_entries`);
        return { entries: null, upToSeq: (top.rows[0] as { seq: string }).seq, snapshot };
      }
      const scope = entriesOfScopeSql('j', { tenantId: body.tenantId, environment: body.environment });
      const counted = await tx.raw(`SELECT count(*)::int AS entries FROM journal_entries j WHERE ${scope.sql} AND j.seq <= ? AND j.reference_type = ?`, [...scope.bindings, body.upToSeq, body.referenceType]);
      return { entries: (counted.rows[0] as { entries: number }).entries, upToSeq: body.upToSeq, snapshot };
    },
    { isolationLevel: 'repeatable read' },
  );
}
