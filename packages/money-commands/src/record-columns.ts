import type { Environment } from '@wallet/contracts';
import { columnName, type ColumnType, type RecordScope, type RecordTable } from './money-command-statement';

/*
 * A record's columns, spelled once: the stored type, the columns a read selects and the columns
 * the creating statement writes all come from one spec. The migration that made the table is
 * frozen SQL and stays apart (docs/decisions/shared-packages.md).
 */

/** A column: its PostgreSQL type and whether the creating statement writes it; `Value` is what the record holds there. */
export interface RecordColumn<Value, Written extends boolean = boolean> {
  type: ColumnType;
  written: Written;
  /** Never set: carries `Value` for StoredOf. */
  readonly holds?: () => Value;
}

/** A column the creating statement writes, from the draft (tenantId and environment from the request's scope). */
export function written<Value>(type: ColumnType): RecordColumn<Value, true> {
  return { type, written: true };
}

/** A column the database fills (seq, a default) or a later step sets (a status, an entry): read, never in a draft. */
export function filled<Value>(type: ColumnType): RecordColumn<Value, false> {
  return { type, written: false };
}

export type ColumnSpec = Record<string, RecordColumn<unknown>>;

/**
 * The columns every money record has: its seq (a bigserial, which reconciliation pages by), its
 * id and its scope. A spec spreads them in first.
 */
export const SCOPED_RECORD_COLUMNS = {
  seq: filled<string>('bigint'),
  id: written<string>('text'),
  tenantId: written<string>('text'),
  environment: written<Environment>('text'),
};

/**
 * What a movement that charges a fee stores of its quote (docs/decisions/fees.md): the fee, the
 * platform's commission out of it, and the schedule, rule and commission rate that set them.
 * Spelled once so that every charged movement's columns stay those its quote fills.
 */
export const FEE_COLUMNS = {
  fee: written<string>('numeric'),
  commission: written<string>('numeric'),
  feeScheduleId: written<string | null>('text'),
  feeRuleId: written<string | null>('text'),
  platformCommissionBps: written<number>('integer'),
};

type ValueOf<Column> = Column extends RecordColumn<infer Value> ? Value : never;

/** The record a spec's columns hold, field for column. */
export type RecordOf<Spec extends ColumnSpec> = { [Field in keyof Spec]: ValueOf<Spec[Field]> };

/** The record as a read gives it: every column, field for column. */
export type StoredOf<Columns extends { spec: ColumnSpec }> = RecordOf<Columns['spec']>;

/** What a request gives the creating statement: the written columns but the scope's. */
export type DraftOf<Columns extends { spec: ColumnSpec }> = WrittenOf<Columns['spec']>;

type WrittenOf<Spec extends ColumnSpec> = Omit<
  { [Field in keyof Spec as Spec[Field] extends RecordColumn<unknown, true> ? Field : never]: ValueOf<Spec[Field]> },
  keyof RecordScope
>;

export interface RecordColumns<Spec extends ColumnSpec> {
  spec: Spec;
  /** Every column as a read selects it (snake_case), in the spec's order. */
  names: string[];
  /** The written columns by field, as RecordTable.columns lists them. */
  written: RecordTable<WrittenOf<Spec>>['columns'];
}

export function recordColumns<Spec extends ColumnSpec>(spec: Spec): RecordColumns<Spec> {
  const fields = Object.entries(spec);
  return {
    spec,
    names: fields.map(([field]) => columnName(field)),
    written: Object.fromEntries(
      fields.filter(([, column]) => column.written).map(([field, column]) => [field, column.type]),
    ) as RecordColumns<Spec>['written'],
  };
}
