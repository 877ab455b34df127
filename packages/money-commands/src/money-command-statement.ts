import type { Knex } from 'knex';
import type { Environment, LedgerResultV1, WalletStatus } from '@wallet/contracts';
import {
  completionsStatement,
  type Db,
  type FinalAnswer,
  firstAnswersStatement,
  type OutboxMessage,
  outboxInsertForRowsStatement,
  unansweredInsertForRowsStatement,
  prepared,
  type SqlStatement,
  type Tx,
} from '@wallet/kit';

/*
 * The statements of a money command, written once for every feature that moves money: the one
 * that creates the record with its ledger command and its key's first answer, and the one that
 * records the ledger's answer to a step of the record (with the caller's final answer, or from
 * the ledger's events). A feature declares its table and its steps; the SQL is here.
 */

export interface RecordScope {
  tenantId: string;
  environment: Environment;
}

/** What every money record is: one of its scope's, with its id and the amount it moves. */
export interface MoneyRecord extends RecordScope {
  id: string;
  currencyCode: string;
  amount: string;
}

/** A money record that charges a fee, of which `commission` is the platform's part. */
export interface ChargedMoneyRecord extends MoneyRecord {
  fee: string;
  commission: string;
}

/** What a money command needs of a wallet: its owner names its ledger account; its currency and status are checked before the command. */
export interface WalletAccount {
  id: string;
  ownerId: string;
  currencyCode: string;
  status: WalletStatus;
}

/** The PostgreSQL types a record column is bound as (each as an array of them). */
export type ColumnType = 'text' | 'numeric' | 'integer' | 'bigint' | 'boolean' | 'jsonb' | 'timestamptz';

/**
 * A record table as its creating statement writes it: each column by the field of the record it
 * holds (`fromWalletId` is the column `from_wallet_id`), in the order the columns are listed.
 * `tenantId` and `environment` come from the request's scope.
 */
export interface RecordTable<Draft> {
  name: string;
  columns: Partial<Record<keyof (Draft & RecordScope) & string, ColumnType>>;
  /** What each record claims of another row as it is created (see RecordClaim). */
  claim?: RecordClaim<Draft>;
  /**
   * With keyWrite 'natural-key': the unique index (its columns and predicate, as ON CONFLICT
   * names it) that makes a second record of the same thing give way to the first.
   */
  naturalKey?: string;
}

/**
 * A claim a record makes on another row of its scope (`c`, in `claimTable`, whose id is the
 * record's `key`): each total the row keeps grows by a field of the record, and the claim holds
 * only where `when` holds of the row and no total passes its bound (a column of the row). The
 * creating statement makes the claim; where it does not hold, nothing of the record is written
 * (ClaimRefusedError). The ledger's refusal of the record gives the claim back, in the statement
 * that records the refusal. So the totals are the sums over the row's records not refused, under
 * any concurrency: a row lock orders the claims, and each is checked against the totals as the
 * claims before it left them.
 */
export interface RecordClaim<Draft = Record<string, unknown>> {
  claimTable: string;
  key: keyof Draft & string;
  /** A condition on the claimed row `c` (`c.status = 'completed'`). */
  when: string;
  totals: ReadonlyArray<{ total: string; adds: keyof Draft & string; upTo: string }>;
}

/** A record's claim did not hold: nothing of it was written; the declaration says why (MoneyCommandDeclaration.claimRefused). */
export class ClaimRefusedError extends Error {
  constructor(readonly recordId: string) {
    super(`the claim of ${recordId} did not hold`);
  }
}

function claimUpdate(claim: RecordClaim, rows: string): string {
  const key = columnName(claim.key);
  const totals = claim.totals.map((each) => ({ total: each.total, adds: columnName(each.adds), upTo: each.upTo }));
  return `UPDATE ${claim.claimTable} c SET ${totals.map((each) => `${each.total} = c.${each.total} + t.${each.adds}`).join(', ')}
       FROM ${rows}
       WHERE c.id = t.${key} AND c.tenant_id = t.tenant_id AND c.environment = t.environment AND (${claim.when})
         ${totals.map((each) => `AND c.${each.total} + t.${each.adds} <= c.${each.upTo}`).join(' ')}
       RETURNING t.id`;
}

/** Gives back the claims of the records in `finished` (`refused` true): summed per claimed row, as one row is updated once per statement. */
function claimRelease(claim: RecordClaim, finished: string): string {
  const key = columnName(claim.key);
  const totals = claim.totals.map((each) => ({ total: each.total, adds: columnName(each.adds) }));
  return `UPDATE ${claim.claimTable} c SET ${totals.map((each) => `${each.total} = c.${each.total} - g.${each.adds}`).join(', ')}
       FROM (SELECT ${key}, tenant_id, environment, ${totals.map((each) => `sum(${each.adds}) AS ${each.adds}`).join(', ')}
               FROM ${finished} WHERE refused GROUP BY ${key}, tenant_id, environment) g
       WHERE c.id = g.${key} AND c.tenant_id = g.tenant_id AND c.environment = g.environment`;
}

/**
 * How the statement writes the key's first answer: `first-write` inserts the key with it (the
 * route claims its key at its first write), `held` completes a key claimed before the handler ran.
 * Either part yields the lock_token of each key it wrote, which the record joins on.
 * `natural-key`: there is no Idempotency-Key (a provider's webhook); the record's own unique key
 * (RecordTable.naturalKey) is what makes a repeat write nothing.
 */
export type KeyWrite = 'first-write' | 'held' | 'natural-key';

/** One record to create: its draft, its key's first answer (none under a natural key), and the messages sent once it is written. */
export interface NewRecord<Draft> {
  scope: RecordScope;
  draft: Draft;
  answer: FinalAnswer | null;
  messages: readonly OutboxMessage[];
}

/** A field's column: `fromWalletId` is `from_wallet_id`. */
export function columnName(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A record's value of `field`: the scope's for tenantId and environment, else the draft's. */
function fieldOf<Draft>(record: NewRecord<Draft>, field: string): unknown {
  return field === 'tenantId' || field === 'environment' ? record.scope[field] : (record.draft as Record<string, unknown>)[field];
}

function columnValue(value: unknown, type: ColumnType): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return type === 'jsonb' ? JSON.stringify(value) : value;
}

/**
 * Creates records with their messages in the outbox and their keys' first answers, as one
 * statement for all of them: a key's part yields a row only where this attempt may write the
 * key, a record is inserted from that row, and its messages only once it is. Rows: `id, seq` of
 * each record written; a record whose key was not written is absent, and nothing of it is written.
 */
export function recordStatement<Draft extends { id: string }>(
  table: RecordTable<Draft>,
  keyWrite: KeyWrite,
  records: readonly NewRecord<Draft>[],
): SqlStatement {
  if (keyWrite === 'natural-key') return naturalKeyStatement(table, records);
  const answers = (keyWrite === 'first-write' ? firstAnswersStatement : completionsStatement)(records.map((record) => answerOf(record)));
  const commands = commandsOf(records);
  const fields = Object.entries(table.columns) as Array<[string, ColumnType]>;
  const names = fields.map(([field]) => columnName(field));
  const rows = `unnest(${fields.map(([, type]) => `CAST(? AS ${type}[])`).join(', ')}, CAST(? AS uuid[]))
         WITH ORDINALITY AS t(${names.join(', ')}, lock_token, position)`;
  const bindings = [
    ...answers.bindings,
    ...columnBindings(fields, records),
    records.map((record) => answerOf(record).claim.lockToken),
    ...commands.bindings,
  ] as unknown as readonly Knex.RawBinding[];
  const insert = (from: string) => insertFrom(table.name, names, from, '');
  if (!table.claim) {
    return {
      sql: `WITH answer AS (${answers.sql}),
     created AS (${insert(`${rows} JOIN answer ON answer.lock_token = t.lock_token`)}),
     ${commands.sql}
     SELECT id, seq FROM created`,
      bindings,
    };
  }
  // A record whose key was written but whose claim did not hold comes back with a null seq.
  return {
    sql: `WITH answer AS (${answers.sql}),
     input AS (SELECT t.* FROM ${rows} JOIN answer ON answer.lock_token = t.lock_token),
     claimed AS (${claimUpdate(table.claim as RecordClaim, 'input t')}),
     created AS (${insert('input t JOIN claimed ON claimed.id = t.id')}),
     ${commands.sql}
     SELECT t.id, created.seq FROM input t LEFT JOIN created ON created.id = t.id`,
    bindings,
  };
}

function answerOf<Draft>(record: NewRecord<Draft>): FinalAnswer {
  if (!record.answer) throw new Error('a record written under an Idempotency-Key needs its answer');
  return record.answer;
}

/**
 * The WITH parts writing the records' messages, each only if its record is among `created`: to
 * the outbox, and those that expect an answer (ledger commands) also until it is recorded.
 */
function commandsOf<Draft extends { id: string }>(records: readonly NewRecord<Draft>[]): SqlStatement {
  const messages = records.flatMap((record) => record.messages);
  const keys = records.flatMap((record) => record.messages.map(() => record.draft.id));
  const rowsIn = { name: 'created', column: 'id' };
  const sent = outboxInsertForRowsStatement(messages, keys, rowsIn);
  const kept = unansweredInsertForRowsStatement(messages, keys, rowsIn);
  if (!kept) return { sql: `command AS (${sent.sql})`, bindings: sent.bindings };
  return { sql: `command AS (${sent.sql}), kept AS (${kept.sql})`, bindings: [...sent.bindings, ...kept.bindings] };
}

function columnBindings<Draft>(fields: ReadonlyArray<[string, ColumnType]>, records: readonly NewRecord<Draft>[]): unknown[][] {
  // Read field by field rather than from one merged object: a spread per record cost more than the rest of the statement.
  return fields.map(([field, type]) => records.map((record) => columnValue(fieldOf(record, field), type)));
}

function insertFrom(table: string, names: readonly string[], from: string, onConflict: string): string {
  return `INSERT INTO ${table} (${names.join(', ')})
       SELECT ${names.map((name) => `t.${name}`).join(', ')}
       FROM ${from}
       ORDER BY t.position${onConflict}
       RETURNING id, seq`;
}

/**
 * Records that a unique key of their own dedupes: one that repeats a record written before (or
 * earlier in the same statement) writes nothing, not even its messages. Rows as recordStatement's.
 */
function naturalKeyStatement<Draft extends { id: string }>(table: RecordTable<Draft>, records: readonly NewRecord<Draft>[]): SqlStatement {
  if (!table.naturalKey || table.claim) throw new Error(`${table.name}: a natural-key record declares its naturalKey and claims nothing`);
  const commands = commandsOf(records);
  const fields = Object.entries(table.columns) as Array<[string, ColumnType]>;
  const names = fields.map(([field]) => columnName(field));
  const rows = `unnest(${fields.map(([, type]) => `CAST(? AS ${type}[])`).join(', ')}) WITH ORDINALITY AS t(${names.join(', ')}, position)`;
  return {
    sql: `WITH created AS (${insertFrom(table.name, names, rows, `\n       ON CONFLICT ${table.naturalKey} DO NOTHING`)}),
     ${commands.sql}
     SELECT id, seq FROM created`,
    bindings: [...columnBindings(fields, records), ...commands.bindings] as unknown as readonly Knex.RawBinding[],
  };
}

/** recordStatement run: for each record, its seq, or null when its key was not written (nothing of it was). */
export async function insertRecords<Draft extends { id: string }>(
  db: Db,
  table: RecordTable<Draft>,
  keyWrite: KeyWrite,
  records: readonly NewRecord<Draft>[],
): Promise<Array<string | null>> {
  const statement = recordStatement(table, keyWrite, records);
  const run = async (on: Db | Tx) => {
    const result = await prepared<{ rows: Array<{ id: string; seq: string | null }> }>(on, statement.sql, statement.bindings);
    // A claim that did not hold undoes the whole statement: a key written without its record would answer 202 for nothing.
    const refused = result.rows.find((row) => row.seq === null);
    if (refused) throw new ClaimRefusedError(refused.id);
    return result.rows;
  };
  const rows = table.claim ? await db.transaction((tx) => run(tx)) : await run(db);
  const seqs = new Map(rows.map((row) => [row.id, row.seq]));
  return records.map((record) => seqs.get(record.draft.id) ?? null);
}

/**
 * A step of a record that the ledger answers (a transfer's posting, a case's hold): how its row
 * `r` says it still waits, and how the answer is recorded from `u.journal_entry_id` and
 * `u.failure_code` (one of them null). The step leaves waiting exactly once, whichever of the
 * reply and the event records it.
 */
export interface RecordStep {
  table: string;
  waiting: string;
  recorded: string;
  /** The claim the step's records made (RecordTable.claim), given back when the ledger refuses one. */
  claim?: RecordClaim;
}

/**
 * The step of a record that is pending until the ledger posts it (completed, with its entry) or
 * refuses it (failed, with the ledger's code), finished once either way.
 */
export function settlementStep(table: string): RecordStep {
  return {
    table,
    waiting: "r.status = 'pending'",
    recorded:
      "status = CASE WHEN u.failure_code IS NULL THEN 'completed' ELSE 'failed' END, journal_entry_id = u.journal_entry_id, failure_code = u.failure_code, finished_at = now()",
  };
}

export type StepOutcome = { status: 'posted'; journalEntryId: string } | { status: 'refused'; failureCode: string };

/** The ledger's answer to a step's command; null for a result that names no entry to record. */
export function stepOutcomeOf(result: LedgerResultV1): StepOutcome | null {
  if (result.status === 'posted' && result.journalEntryId) return { status: 'posted', journalEntryId: result.journalEntryId };
  if (result.status === 'rejected') return { status: 'refused', failureCode: result.error?.code ?? 'VALIDATION_ERROR' };
  return null;
}

/** The results whose command is a step of `steps`, as `stepOf` reads its command id (a record's several steps share one reference type). */
export function resultsOfSteps<Step extends string>(
  results: readonly LedgerResultV1[],
  stepOf: (commandId: string) => Step | null,
  ...steps: Step[]
): LedgerResultV1[] {
  return results.filter((result) => {
    const step = stepOf(result.commandId);
    return step !== null && steps.includes(step);
  });
}

/** An outcome for the record a ledger result names, with the scope the result carries. */
export interface ScopedOutcome {
  scope: RecordScope;
  id: string;
  outcome: StepOutcome;
}

/** The outcomes among `results` (the ledger's events of one reference type). */
export function scopedOutcomesOf(results: readonly LedgerResultV1[]): ScopedOutcome[] {
  const outcomes: ScopedOutcome[] = [];
  for (const result of results) {
    const outcome = stepOutcomeOf(result);
    if (outcome && result.reference)
      outcomes.push({ scope: { tenantId: result.tenantId, environment: result.environment }, id: result.reference.id, outcome });
  }
  return outcomes;
}

/**
 * The update recording outcomes on the rows still waiting in their scope; any other row is left
 * as it is. `r.id = ANY` gives the planner the primary-key lookup outright rather than a join it
 * might cost as a scan; with `seqs`, a row is named by its seq as well.
 */
function stepUpdate(step: RecordStep, outcomes: readonly ScopedOutcome[], seqs?: readonly string[]): SqlStatement {
  const bySeq = seqs !== undefined;
  return {
    sql: `UPDATE ${step.table} r SET ${step.recorded}
       FROM unnest(CAST(? AS text[]), ${bySeq ? 'CAST(? AS bigint[]), ' : ''}CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]))
         AS u(id, ${bySeq ? 'seq, ' : ''}tenant_id, environment, journal_entry_id, failure_code)
       WHERE r.id = ANY(CAST(? AS text[])) AND r.id = u.id${bySeq ? ' AND r.seq = u.seq' : ''} AND r.tenant_id = u.tenant_id AND r.environment = u.environment
         AND (${step.waiting})`,
    bindings: [
      outcomes.map((each) => each.id),
      ...(bySeq ? [seqs] : []),
      outcomes.map((each) => each.scope.tenantId),
      outcomes.map((each) => each.scope.environment),
      outcomes.map((each) => (each.outcome.status === 'posted' ? each.outcome.journalEntryId : null)),
      outcomes.map((each) => (each.outcome.status === 'refused' ? each.outcome.failureCode : null)),
      outcomes.map((each) => each.id),
    ] as unknown as readonly Knex.RawBinding[],
  };
}

/** Records outcomes in one statement (the ledger's events, batched; a refusal the reply brought): how many rows it finished. */
export async function finishSteps(db: Db | Tx, step: RecordStep, outcomes: readonly ScopedOutcome[]): Promise<number> {
  if (outcomes.length === 0) return 0;
  const statement = stepUpdate(step, outcomes);
  if (step.claim) {
    const released = await prepared<{ rows: Array<{ finished: string }> }>(
      db,
      `WITH finished AS (${statement.sql}
         RETURNING r.*, u.failure_code IS NOT NULL AS refused),
       released AS (${claimRelease(step.claim, 'finished')})
       SELECT count(*)::text AS finished FROM finished`,
      statement.bindings,
    );
    return Number(released.rows[0]?.finished ?? 0);
  }
  const result = await prepared<{ rowCount: number | null }>(db, statement.sql, statement.bindings);
  return result.rowCount ?? 0;
}

/** An entry the ledger posted for a step of a record this attempt created. */
export interface PostedStep {
  scope: RecordScope;
  record: { id: string; seq: string };
  journalEntryId: string;
}

/**
 * Records posted entries and stores their callers' answers, as one statement. An answer is
 * stored even when the event path recorded its entry first (it recorded the same entry).
 * `answer` is a statement part that yields a `lock_token` row for each answer it stored.
 */
export function postedStatement(step: RecordStep, posted: readonly PostedStep[], answer: SqlStatement): SqlStatement {
  const outcomes = posted.map((each): ScopedOutcome => ({
    scope: each.scope,
    id: each.record.id,
    outcome: { status: 'posted', journalEntryId: each.journalEntryId },
  }));
  const update = stepUpdate(
    step,
    outcomes,
    posted.map((each) => each.record.seq),
  );
  return {
    sql: `WITH finished AS (${update.sql}
       RETURNING r.id),
     answer AS (${answer.sql})
     SELECT lock_token FROM answer`,
    bindings: [...update.bindings, ...answer.bindings],
  };
}

/** postedStatement run: the lock tokens of the answers it stored. */
export async function recordPosted(
  db: Db,
  step: RecordStep,
  posted: readonly PostedStep[],
  answer: SqlStatement,
): Promise<Set<string | null>> {
  const statement = postedStatement(step, posted, answer);
  const result = await prepared<{ rows: Array<{ lock_token: string | null }> }>(db, statement.sql, statement.bindings);
  return new Set(result.rows.map((row) => row.lock_token));
}
