import {
  type FeeScheduleOrigin,
  feeScheduleOriginSchema,
  type FeeScheduleStatus,
  feeScheduleStatusSchema,
  type FeeTransactionType,
  feeTransactionTypeSchema,
} from '@wallet/contracts';
import { type Db, prepared, type SqlStatement, type Tx } from '@wallet/kit';
import { z } from 'zod';

interface ScheduleRow {
  seq: string;
  id: string;
  tenant_id: string;
  name: string;
  platform_commission_bps: number;
  status: FeeScheduleStatus;
  is_default: boolean;
  default_on_publish: boolean;
  origin: FeeScheduleOrigin;
  created_by: string | null;
  published_at: Date | null;
  published_by: string | null;
  created_at: Date;
}

interface RuleRow {
  seq: string;
  id: string;
  schedule_id: string;
  transaction_type: FeeTransactionType;
  currency_code: string;
  min_amount: string | null;
  max_amount: string | null;
  flat_fee: string;
  percentage_fee: string;
  min_fee: string | null;
  max_fee: string | null;
  created_at: Date;
}

export interface StoredSchedule {
  seq: string;
  id: string;
  tenantId: string;
  name: string;
  platformCommissionBps: number;
  status: FeeScheduleStatus;
  isDefault: boolean;
  defaultOnPublish: boolean;
  origin: FeeScheduleOrigin;
  createdBy: string | null;
  publishedAt: Date | null;
  publishedBy: string | null;
  createdAt: Date;
}

/** A rule as stored: NUMERIC columns come back as their exact decimal text. */
export interface StoredRule {
  seq: string;
  id: string;
  scheduleId: string;
  transactionType: FeeTransactionType;
  currencyCode: string;
  minAmount: string | null;
  maxAmount: string | null;
  flatFee: string;
  percentageFee: string;
  minFee: string | null;
  maxFee: string | null;
  createdAt: Date;
}

export type NewRule = Omit<StoredRule, 'seq' | 'createdAt'>;

const SCHEDULE_COLUMNS = [
  'seq',
  'id',
  'tenant_id',
  'name',
  'platform_commission_bps',
  'status',
  'is_default',
  'default_on_publish',
  'origin',
  'created_by',
  'published_at',
  'published_by',
  'created_at',
];
const RULE_COLUMNS = [
  'seq',
  'id',
  'schedule_id',
  'transaction_type',
  'currency_code',
  'min_amount',
  'max_amount',
  'flat_fee',
  'percentage_fee',
  'min_fee',
  'max_fee',
  'created_at',
];

function toSchedule(row: ScheduleRow): StoredSchedule {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    platformCommissionBps: row.platform_commission_bps,
    status: row.status,
    isDefault: row.is_default,
    defaultOnPublish: row.default_on_publish,
    origin: row.origin,
    createdBy: row.created_by,
    publishedAt: row.published_at,
    publishedBy: row.published_by,
    createdAt: row.created_at,
  };
}

function toRule(row: RuleRow): StoredRule {
  return {
    seq: row.seq,
    id: row.id,
    scheduleId: row.schedule_id,
    transactionType: row.transaction_type,
    currencyCode: row.currency_code,
    minAmount: row.min_amount,
    maxAmount: row.max_amount,
    flatFee: row.flat_fee,
    percentageFee: row.percentage_fee,
    minFee: row.min_fee,
    maxFee: row.max_fee,
    createdAt: row.created_at,
  };
}

export async function insertSchedule(
  tx: Tx,
  schedule: {
    id: string;
    tenantId: string;
    name: string;
    platformCommissionBps: number;
    defaultOnPublish: boolean;
    origin: FeeScheduleOrigin;
    createdBy: string;
  },
): Promise<StoredSchedule> {
  const rows: ScheduleRow[] = await tx('fee_schedules')
    .insert({
      id: schedule.id,
      tenant_id: schedule.tenantId,
      name: schedule.name,
      platform_commission_bps: schedule.platformCommissionBps,
      default_on_publish: schedule.defaultOnPublish,
      origin: schedule.origin,
      created_by: schedule.createdBy,
    })
    .returning(SCHEDULE_COLUMNS);
  const row = rows[0];
  if (!row) throw new Error(`fee schedule ${schedule.id} was not inserted`);
  return toSchedule(row);
}

/** A schedule of this tenant only: another tenant's id is not found. `forUpdate` locks its row until the transaction ends. */
export async function findSchedule(
  db: Db | Tx,
  tenantId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredSchedule | null> {
  const query = db('fee_schedules').select(SCHEDULE_COLUMNS).where({ tenant_id: tenantId, id }).first();
  if (options.forUpdate) query.forUpdate();
  const row: ScheduleRow | undefined = await query;
  return row ? toSchedule(row) : null;
}

/** The tenant's default schedule (always a published one), or null. */
export async function findDefaultSchedule(db: Db | Tx, tenantId: string): Promise<StoredSchedule | null> {
  // Read on every money movement: prepared, so it is planned once per connection.
  const result = await prepared<{ rows: ScheduleRow[] }>(
    db,
    `SELECT ${SCHEDULE_COLUMNS.join(', ')} FROM fee_schedules WHERE tenant_id = ? AND is_default LIMIT 1`,
    [tenantId],
  );
  const row = result.rows[0];
  return row ? toSchedule(row) : null;
}

/** Newest first; one more row than asked, so the caller knows whether a next page exists. */
export async function listSchedules(
  db: Db,
  filter: { tenantId: string; status?: FeeScheduleStatus | undefined; beforeSeq?: string | undefined; limit: number },
): Promise<StoredSchedule[]> {
  const query = db('fee_schedules')
    .select(SCHEDULE_COLUMNS)
    .where('tenant_id', filter.tenantId)
    .orderBy('seq', 'desc')
    .limit(filter.limit + 1);
  if (filter.status !== undefined) query.where('status', filter.status);
  if (filter.beforeSeq !== undefined) query.where('seq', '<', filter.beforeSeq);
  const rows: ScheduleRow[] = await query;
  return rows.map(toSchedule);
}

/** A schedule's rules in the order they were added; only those of one type and currency when given. */
export async function rulesOf(
  db: Db | Tx,
  scheduleId: string,
  only?: { transactionType: FeeTransactionType; currencyCode: string },
): Promise<StoredRule[]> {
  if (only) {
    const result = await prepared<{ rows: RuleRow[] }>(
      db,
      `SELECT ${RULE_COLUMNS.join(', ')} FROM fee_rules WHERE schedule_id = ? AND transaction_type = ? AND currency_code = ? ORDER BY seq`,
      [scheduleId, only.transactionType, only.currencyCode],
    );
    return result.rows.map(toRule);
  }
  const rows: RuleRow[] = await db('fee_rules').select(RULE_COLUMNS).where('schedule_id', scheduleId).orderBy('seq', 'asc');
  return rows.map(toRule);
}

export async function insertRule(tx: Tx, rule: NewRule): Promise<StoredRule> {
  const rows: RuleRow[] = await tx('fee_rules')
    .insert({
      id: rule.id,
      schedule_id: rule.scheduleId,
      transaction_type: rule.transactionType,
      currency_code: rule.currencyCode,
      min_amount: rule.minAmount,
      max_amount: rule.maxAmount,
      flat_fee: rule.flatFee,
      percentage_fee: rule.percentageFee,
      min_fee: rule.minFee,
      max_fee: rule.maxFee,
    })
    .returning(RULE_COLUMNS);
  const row = rows[0];
  if (!row) throw new Error(`fee rule ${rule.id} was not inserted`);
  return toRule(row);
}

/** Deletes one rule of a schedule; null when the schedule has no such rule. */
export async function deleteRule(tx: Tx, scheduleId: string, ruleId: string): Promise<StoredRule | null> {
  const rows: RuleRow[] = await tx('fee_rules').where({ schedule_id: scheduleId, id: ruleId }).delete().returning(RULE_COLUMNS);
  const row = rows[0];
  return row ? toRule(row) : null;
}

/**
 * Serializes changes of a tenant's default schedule until the transaction ends: two publishes
 * that both make their schedule the default run one after the other, so exactly one ends as
 * the default (the later), never a unique violation.
 */
export async function lockTenantDefault(tx: Tx, tenantId: string): Promise<void> {
  await tx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`fee_schedules.default:${tenantId}`]);
}

/** draft -> published, with the commission it keeps from now on; when it becomes the default, the previous default stops being one. */
export async function markPublished(
  tx: Tx,
  schedule: { tenantId: string; id: string },
  changes: { makeDefault: boolean; platformCommissionBps: number; publishedBy: string },
): Promise<StoredSchedule> {
  if (changes.makeDefault) {
    await tx('fee_schedules')
      .where({ tenant_id: schedule.tenantId, is_default: true })
      .whereNot('id', schedule.id)
      .update({ is_default: false });
  }
  const rows: ScheduleRow[] = await tx('fee_schedules')
    .where({ tenant_id: schedule.tenantId, id: schedule.id, status: 'draft' })
    .update({
      status: 'published',
      published_at: tx.fn.now(),
      published_by: changes.publishedBy,
      is_default: changes.makeDefault,
      platform_commission_bps: changes.platformCommissionBps,
    })
    .returning(SCHEDULE_COLUMNS);
  const row = rows[0];
  if (!row) throw new Error(`fee schedule ${schedule.id} was not a draft when published`);
  return toSchedule(row);
}

const jsonDate = z.string().transform((text) => new Date(text));
const scheduleJsonSchema = z.object({
  seq: z.string(),
  id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  platform_commission_bps: z.number().int(),
  status: feeScheduleStatusSchema,
  is_default: z.boolean(),
  default_on_publish: z.boolean(),
  origin: feeScheduleOriginSchema,
  created_by: z.string().nullable(),
  published_at: jsonDate.nullable(),
  published_by: z.string().nullable(),
  created_at: jsonDate,
});
const ruleJsonSchema = z.object({
  seq: z.string(),
  id: z.string(),
  schedule_id: z.string(),
  transaction_type: feeTransactionTypeSchema,
  currency_code: z.string(),
  min_amount: z.string().nullable(),
  max_amount: z.string().nullable(),
  flat_fee: z.string(),
  percentage_fee: z.string(),
  min_fee: z.string().nullable(),
  max_fee: z.string().nullable(),
  created_at: jsonDate,
});
const defaultTermsJsonSchema = z.object({ schedule: scheduleJsonSchema, rules: z.array(ruleJsonSchema) }).nullable();

export interface DefaultTerms {
  schedule: StoredSchedule | null;
  rules: StoredRule[];
}

/**
 * The tenant's default schedule with its rules of one type and currency, as one scalar SQL
 * expression yielding JSON, so a money movement reads its fee terms in the same round trip as
 * its other rows. Numbers and ids travel as text: no NUMERIC ever passes through a JS float.
 */
export function defaultTermsExpression(
  tenantId: string,
  only: { transactionType: FeeTransactionType; currencyCode: string },
): SqlStatement {
  return {
    sql: `(SELECT json_build_object(
             'schedule', to_json(s),
             'rules', coalesce((SELECT json_agg(r ORDER BY r.seq::bigint) FROM (
                 SELECT seq::text AS seq, id, schedule_id, transaction_type, currency_code, min_amount::text AS min_amount, max_amount::text AS max_amount,
                        flat_fee::text AS flat_fee, percentage_fee::text AS percentage_fee, min_fee::text AS min_fee, max_fee::text AS max_fee, created_at
                 FROM fee_rules WHERE schedule_id = s.id AND transaction_type = ? AND currency_code = ?) r), '[]'::json))
           FROM (SELECT seq::text AS seq, id, tenant_id, name, platform_commission_bps, status, is_default, default_on_publish, origin, created_by, published_at,
                        published_by, created_at
                 FROM fee_schedules WHERE tenant_id = ? AND is_default LIMIT 1) s)`,
    bindings: [only.transactionType, only.currencyCode, tenantId],
  };
}

/** What `defaultTermsExpression` yielded, as the stored records. */
export function parseDefaultTerms(value: unknown): DefaultTerms {
  const parsed = defaultTermsJsonSchema.parse(value);
  if (!parsed) return { schedule: null, rules: [] };
  return { schedule: toSchedule(parsed.schedule), rules: parsed.rules.map(toRule) };
}
