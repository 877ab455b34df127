import type { Environment } from '@wallet/contracts';
import { columnName, type ColumnType, type RecordScope, type RecordTable } from './money-command-statement';

/*
 * A record's columns, spelled once: the stored type, the columns a read selects and the columns
 * the creating statement writes all come from one spec. The migration that made the table is
 * frozen SQL and stays apart (docs/decisions/shared-packages.md).
 */

/**
 * A column: its PostgreSQL type, whether the creating statement writes it and whether a read
 * selects it; `Value` is what the record holds there.
 */
export interface RecordColumn<Value, Written extends boolean = boolean, Read extends boolean = boolean> {
  type: ColumnType;
  written: Written;
  read: Read;
  /** Never set: carries `Value` for StoredOf. */
  readonly holds?: () => Value;
}

/** A column the creating statement writes, from the draft (tenantId and environment from the request's scope). */
export function written<Value>(type: ColumnType): RecordColumn<Value, true, true> {
  return { type, written: true, read: true };
}

/** A column the database fills (seq, a default) or a later step sets (a status, an entry): read, never in a draft. */
export function filled<Value>(type: ColumnType): RecordColumn<Value, false, true> {
  return { type, written: false, read: true };
}

/**
 * A column the creating statement writes that no read selects (the fee rule that priced the
 * record, its request's correlation id): in the draft, not in the stored record.
 */
export function writtenOnly<Value>(type: ColumnType): RecordColumn<Value, true, false> {
  return { type, written: true, read: false };
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

type ReadOf<Column> = Column extends RecordColumn<unknown, boolean, infer Read> ? Read : never;

/** The record a spec's read columns hold, field for column. */
export type RecordOf<Spec extends ColumnSpec> = {
  [Field in keyof Spec as Spec[Field] extends RecordColumn<unknown, boolean, true> ? Field : never]: ValueOf<Spec[Field]>;
};

/** The record as a read gives it: every read column, field for column. */
export type StoredOf<Columns extends { spec: ColumnSpec }> = RecordOf<Columns['spec']>;

/** What a request gives the creating statement: the written columns but the scope's. */
export type DraftOf<Columns extends { spec: ColumnSpec }> = WrittenOf<Columns['spec']>;

type WrittenOf<Spec extends ColumnSpec> = Omit<
  { [Field in keyof Spec as Spec[Field] extends RecordColumn<unknown, true> ? Field : never]: ValueOf<Spec[Field]> },
  keyof RecordScope
>;

/** A spec with `Field`'s columns filled rather than written: read as before, out of the draft. */
export type WithFilled<Spec extends ColumnSpec, Field extends keyof Spec> = {
  [Each in keyof Spec]: Each extends Field ? RecordColumn<ValueOf<Spec[Each]>, false, ReadOf<Spec[Each]>> : Spec[Each];
};

export interface RecordColumns<Spec extends ColumnSpec> {
  spec: Spec;
  /** Every read column as a read selects it (snake_case), in the spec's order. */
  names: string[];
  /** The written columns by field, as RecordTable.columns lists them. */
  written: RecordTable<WrittenOf<Spec>>['columns'];
}

export function recordColumns<Spec extends ColumnSpec>(spec: Spec): RecordColumns<Spec> {
  const fields = Object.entries(spec);
  return {
    spec,
    names: fields.filter(([, column]) => column.read).map(([field]) => columnName(field)),
    written: Object.fromEntries(
      fields.filter(([, column]) => column.written).map(([field, column]) => [field, column.type]),
    ) as RecordColumns<Spec>['written'],
  };
}

/**
 * The same columns for another way of creating the record, which leaves `fields` to the database
 * or a later step: one stored record and one read for every way, each way its own draft (a
 * deposit by mobile money writes its charge; a bank slip, its bank's reference, and its charge
 * once verified).
 */
export function withFilled<Spec extends ColumnSpec, Field extends keyof Spec & string>(
  columns: RecordColumns<Spec>,
  fields: readonly Field[],
): RecordColumns<WithFilled<Spec, Field>> {
  const left: ReadonlySet<string> = new Set(fields);
  const spec = Object.fromEntries(
    Object.entries(columns.spec).map(([field, column]) => [field, left.has(field) ? { ...column, written: false } : column]),
  );
  return recordColumns(spec as WithFilled<Spec, Field>);
}
