import { type Environment, formatAmount, type StatementLineRecord } from '@wallet/contracts';
import { type Db, newestFirst, type SeqPageFilter, type Tx } from '@wallet/kit';
import type { Knex } from 'knex';

export interface StatementScope {
  tenantId: string;
  environment: Environment;
}

/** A statement line ready to store: reference trimmed, amount checked against the currency. */
export interface NewStatementLine {
  date: string;
  reference: string;
  amount: string;
  description: string | null;
}

const INSERT_CHUNK = 1_000;

/**
 * Stores the lines not imported before (same tenant, environment, bank, currency, date,
 * reference and amount); returns how many were new. ON CONFLICT DO NOTHING also drops a line
 * repeated within the same import, and makes concurrent imports of one file count each line once.
 */
export async function insertStatementLines(
  tx: Tx,
  scope: StatementScope,
  importId: string,
  bank: { bankCode: string; currencyCode: string },
  lines: NewStatementLine[],
): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < lines.length; start += INSERT_CHUNK) {
    const chunk = lines.slice(start, start + INSERT_CHUNK);
    const result = await tx.raw<{ rowCount: number | null }>(
      `INSERT INTO bank_statement_lines (import_id, tenant_id, environment, bank_code, currency_code, line_date, reference, reference_key, amount, description)
       SELECT ?, ?, ?, ?, ?, line.line_date, line.reference, lower(line.reference), line.amount, line.description
         FROM unnest(?::date[], ?::text[], ?::numeric[], ?::text[]) AS line (line_date, reference, amount, description)
       ON CONFLICT (tenant_id, environment, bank_code, currency_code, line_date, reference, amount) DO NOTHING`,
      [
        importId,
        scope.tenantId,
        scope.environment,
        bank.bankCode,
        bank.currencyCode,
        chunk.map((line) => line.date),
        chunk.map((line) => line.reference),
        chunk.map((line) => line.amount),
        chunk.map((line) => line.description),
      ] as unknown as readonly Knex.RawBinding[],
    );
    inserted += result.rowCount ?? 0;
  }
  return inserted;
}

export async function insertImport(
  tx: Tx,
  scope: StatementScope,
  row: { id: string; bankCode: string; currencyCode: string; actorType: string; actorId: string },
): Promise<void> {
  await tx('bank_statement_imports').insert({
    id: row.id,
    tenant_id: scope.tenantId,
    environment: scope.environment,
    bank_code: row.bankCode,
    currency_code: row.currencyCode,
    imported: 0,
    duplicates: 0,
    actor_type: row.actorType,
    actor_id: row.actorId,
  });
}

export async function finishImport(tx: Tx, id: string, counts: { imported: number; duplicates: number }): Promise<{ createdAt: Date }> {
  const rows: Array<{ created_at: Date }> = await tx('bank_statement_imports').where({ id }).update(counts).returning(['created_at']);
  const row = rows[0];
  if (!row) throw new Error(`statement import ${id} vanished`);
  return { createdAt: row.created_at };
}

/**
 * Marks the first unused line of the slip's bank, currency, amount and reference (trimmed,
 * case-insensitive) as used by this deposit, or returns null. Every candidate is locked in id
 * order, waiting for a concurrent verification that holds one: once it commits, a line it used
 * no longer qualifies (PostgreSQL re-checks the condition on the locked row), and once it rolls
 * back the line is free again. So a line is used at most once (also guarded by the unique
 * deposit_id), and no slip is rejected while a matching line is merely locked.
 */
export async function claimMatchingLine(
  tx: Tx,
  scope: StatementScope,
  slip: { depositId: string; bankCode: string; currencyCode: string; reference: string; amount: string },
): Promise<{ id: string } | null> {
  const candidates: Array<{ id: string }> = await tx('bank_statement_lines')
    .where({
      tenant_id: scope.tenantId,
      environment: scope.environment,
      bank_code: slip.bankCode,
      currency_code: slip.currencyCode,
      reference_key: slip.reference.trim().toLowerCase(),
    })
    .where('amount', '=', slip.amount)
    .whereNull('deposit_id')
    .orderBy('id')
    .forUpdate()
    .select(['id']);
  const line = candidates[0];
  if (!line) return null;
  const updated: Array<{ id: string }> = await tx('bank_statement_lines')
    .where({ id: line.id })
    .whereNull('deposit_id')
    .update({ deposit_id: slip.depositId, matched_at: tx.fn.now() })
    .returning(['id']);
  return updated[0] ? { id: String(updated[0].id) } : null;
}

// ---- what the tenant reads ----

export interface StatementLineFilter extends SeqPageFilter {
  matched?: boolean | undefined;
  importId?: string | undefined;
}

interface StoredLineRow {
  seq: string;
  import_id: string;
  bank_code: string;
  currency_code: string;
  line_date: string;
  reference: string;
  amount: string;
  description: string | null;
  deposit_id: string | null;
  matched_at: Date | null;
}

export type StoredStatementLine = StatementLineRecord & { seq: string };

/**
 * A scope's statement lines newest first (by id), one more than `limit` (pageBySeq). Unmatched
 * lines walk the partial index of unused lines; an import's lines its own index.
 */
/** A line's columns as the tenant reads them: its id doubles as its position. */
function lineColumns(db: Db | Tx) {
  return [
    'id as seq',
    'import_id',
    'bank_code',
    'currency_code',
    db.raw("to_char(line_date, 'YYYY-MM-DD') as line_date"),
    'reference',
    'amount',
    'description',
    'deposit_id',
    'matched_at',
  ];
}

function toStoredLine(row: StoredLineRow): StoredStatementLine {
  return {
    seq: String(row.seq),
    id: String(row.seq),
    importId: row.import_id,
    bankCode: row.bank_code,
    currencyCode: row.currency_code,
    date: row.line_date,
    reference: row.reference,
    amount: formatAmount(row.amount, row.currency_code),
    description: row.description,
    depositId: row.deposit_id,
    matchedAt: row.matched_at ? row.matched_at.toISOString() : null,
  };
}

export async function listStatementLines(db: Db, scope: StatementScope, filter: StatementLineFilter): Promise<StoredStatementLine[]> {
  const query = newestFirst(db, 'bank_statement_lines', scope, filter, lineColumns(db), { import_id: filter.importId }, 'id');
  if (filter.matched === false) query.whereNull('deposit_id');
  if (filter.matched === true) query.whereNotNull('deposit_id');
  const rows: StoredLineRow[] = await query;
  return rows.map(toStoredLine);
}

/** One of the scope's lines; another scope's is absent. */
export async function findStatementLine(db: Db | Tx, scope: StatementScope, id: string): Promise<StoredStatementLine | null> {
  const row: StoredLineRow | undefined = await db('bank_statement_lines')
    .where({ id, tenant_id: scope.tenantId, environment: scope.environment })
    .first(lineColumns(db));
  return row ? toStoredLine(row) : null;
}

/** Claims this line for the deposit, in the caller's transaction; false when another deposit has it. */
export async function claimLine(tx: Tx, scope: StatementScope, id: string, depositId: string): Promise<boolean> {
  const updated = await tx('bank_statement_lines')
    .where({ id, tenant_id: scope.tenantId, environment: scope.environment })
    .whereNull('deposit_id')
    .update({ deposit_id: depositId, matched_at: tx.fn.now() });
  return updated === 1;
}

/** Unmatched lines of a bank, currency and amount dated within [from, to], oldest first, at most `limit` (bank_statement_lines_unmatched_amount). */
export async function unmatchedLinesLike(
  db: Db,
  scope: StatementScope,
  like: { bankCode: string; currencyCode: string; amount: string; from: string; to: string },
  limit: number,
): Promise<StoredStatementLine[]> {
  const rows: StoredLineRow[] = await db('bank_statement_lines')
    .where({ tenant_id: scope.tenantId, environment: scope.environment, bank_code: like.bankCode, currency_code: like.currencyCode })
    .where('amount', '=', like.amount)
    .whereNull('deposit_id')
    .whereBetween('line_date', [like.from, like.to])
    .orderBy('line_date')
    .limit(limit)
    .select(lineColumns(db));
  return rows.map(toStoredLine);
}

// ---- what reconciliation reads ----

export interface UnmatchedStatementLine {
  statementLineId: string;
  importId: string;
  tenantId: string;
  environment: Environment;
  bankCode: string;
  currencyCode: string;
  date: string;
  reference: string;
  amount: string;
}

/** Statement lines no deposit used, oldest first, at most `limit`. */
export async function unmatchedStatementLines(db: Db, scope: StatementScope | null, limit: number): Promise<UnmatchedStatementLine[]> {
  const query = db('bank_statement_lines')
    .whereNull('deposit_id')
    .orderBy('id')
    .limit(limit)
    .select(
      'id',
      'import_id',
      'tenant_id',
      'environment',
      'bank_code',
      'currency_code',
      db.raw("to_char(line_date, 'YYYY-MM-DD') as line_date"),
      'reference',
      'amount',
    );
  if (scope) query.where({ tenant_id: scope.tenantId, environment: scope.environment });
  const rows: Array<{
    id: string;
    import_id: string;
    tenant_id: string;
    environment: Environment;
    bank_code: string;
    currency_code: string;
    line_date: string;
    reference: string;
    amount: string;
  }> = await query;
  return rows.map((row) => ({
    statementLineId: String(row.id),
    importId: row.import_id,
    tenantId: row.tenant_id,
    environment: row.environment,
    bankCode: row.bank_code,
    currencyCode: row.currency_code,
    date: row.line_date,
    reference: row.reference,
    amount: row.amount,
  }));
}
