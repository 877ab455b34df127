import BigNumber from 'bignumber.js';
import { newId, type Direction, type Environment, type LedgerResultV1 } from '@wallet/contracts';
import { type OutboxMessage, outboxInsertStatement, prepared, sqlArray, type Tx } from '@wallet/kit';
import type { Knex } from 'knex';
import { natureOf } from '../accounts/account-rules';
import { type AccountState, type PlannedEntry, type RecordedResult, systemAccountKey, walletAccountKey } from './posting-planner';

export interface AccountRef {
  tenantId: string;
  environment: Environment;
  currencyCode: string;
  name: string;
  walletId: string | null;
}

export interface DbAccountRow {
  id: string;
  num: string;
  tenant_id: string;
  environment: Environment;
  currency_code: string;
  name: string;
  wallet_id: string | null;
  normal_side: Direction;
  non_negative: boolean;
  status: 'active' | 'frozen';
  balance: string;
  last_posted_at: Date | null;
}

function toState(row: DbAccountRow): AccountState {
  return {
    id: row.id,
    num: row.num,
    tenantId: row.tenant_id,
    environment: row.environment,
    currencyCode: row.currency_code,
    name: row.name,
    walletId: row.wallet_id,
    normalSide: row.normal_side,
    nonNegative: row.non_negative,
    status: row.status,
    balance: new BigNumber(row.balance),
  };
}

export function refKey(ref: AccountRef): string {
  return ref.walletId !== null
    ? walletAccountKey(ref.tenantId, ref.environment, ref.walletId)
    : systemAccountKey(ref.tenantId, ref.environment, ref.currencyCode, ref.name);
}

const ACCOUNT_COLUMNS =
  'a.id, a.num::text AS num, a.tenant_id, a.environment, a.currency_code, a.name, a.wallet_id, a.normal_side, a.non_negative, a.status, a.balance, a.last_posted_at';

/**
 * Locks the accounts named by `refs` (system accounts by name, wallet accounts by wallet) in
 * one statement, in id order: every batch takes its locks in that one order, so two batches
 * never wait on each other in a cycle.
 *
 * The ids are found first, in a materialized CTE, and the rows locked by id. Joined to the
 * lookup directly, a row another batch updated while this one waited for it was re-checked
 * against the lookup's stale copy of that same row and silently left out, so a contended batch
 * had to lock its busiest accounts again in a second statement, out of id order.
 */
export async function lockAccounts(tx: Tx, refs: AccountRef[]): Promise<DbAccountRow[]> {
  if (refs.length === 0) return [];
  const systemRefs = refs.filter((ref) => ref.walletId === null);
  const walletRefs = refs.filter((ref) => ref.walletId !== null);
  const result = await prepared<{ rows: unknown[] }>(
    tx,
    `WITH wanted AS MATERIALIZED (
       SELECT s.id FROM accounts s
         JOIN unnest(?::text[], ?::text[], ?::text[], ?::text[]) AS k(tenant_id, environment, currency_code, name)
           ON s.tenant_id = k.tenant_id AND s.environment = k.environment AND s.currency_code = k.currency_code AND s.name = k.name
        WHERE s.wallet_id IS NULL
       UNION ALL
       SELECT w.id FROM accounts w
         JOIN unnest(?::text[], ?::text[], ?::text[]) AS k(tenant_id, environment, wallet_id)
           ON w.tenant_id = k.tenant_id AND w.environment = k.environment AND w.wallet_id = k.wallet_id
     )
     SELECT ${ACCOUNT_COLUMNS}
       FROM accounts a
      WHERE a.id IN (SELECT id FROM wanted)
      ORDER BY a.id
        FOR UPDATE OF a`,
    [
      systemRefs.map((ref) => ref.tenantId),
      systemRefs.map((ref) => ref.environment),
      systemRefs.map((ref) => ref.currencyCode),
      systemRefs.map((ref) => ref.name),
      walletRefs.map((ref) => ref.tenantId),
      walletRefs.map((ref) => ref.environment),
      sqlArray(walletRefs.map((ref) => ref.walletId)),
    ],
  );
  return result.rows as DbAccountRow[];
}

/** Opens accounts that do not exist yet; a concurrent opener wins quietly (ON CONFLICT DO NOTHING). */
export async function openAccounts(tx: Tx, refs: AccountRef[]): Promise<void> {
  if (refs.length === 0) return;
  const natures = refs.map((ref) => natureOf(ref.name));
  await prepared(
    tx,
    `INSERT INTO accounts (id, tenant_id, environment, currency_code, name, wallet_id, normal_side, non_negative)
     SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::boolean[])
     ON CONFLICT DO NOTHING`,
    [
      refs.map(() => newId('account')),
      refs.map((ref) => ref.tenantId),
      refs.map((ref) => ref.environment),
      refs.map((ref) => ref.currencyCode),
      refs.map((ref) => ref.name),
      sqlArray(refs.map((ref) => ref.walletId)),
      natures.map((nature) => nature.normalSide),
      sqlArray(natures.map((nature) => nature.nonNegative)),
    ],
  );
}

/** The locked accounts by planner key, and the latest stamp of a batch that moved any of them. */
export interface LockedAccounts {
  byKey: Map<string, AccountState>;
  lastPostedAt: Date | null;
}

/**
 * Locks every account the batch touches, opening the missing ones first, in id order so two
 * ledger instances never deadlock.
 */
export async function loadAccountsForUpdate(tx: Tx, refs: AccountRef[]): Promise<LockedAccounts> {
  const unique = new Map<string, AccountRef>();
  for (const ref of refs) if (!unique.has(refKey(ref))) unique.set(refKey(ref), ref);
  const wanted = [...unique.values()];
  const byKey = new Map<string, AccountState>();
  let lastPostedAt: Date | null = null;
  const collect = (rows: DbAccountRow[]): void => {
    for (const row of rows) {
      const state = toState(row);
      byKey.set(refKey({ ...state }), state);
      if (row.last_posted_at !== null && (lastPostedAt === null || row.last_posted_at > lastPostedAt)) lastPostedAt = row.last_posted_at;
    }
  };
  collect(await lockAccounts(tx, wanted));
  const missing = wanted.filter((ref) => !byKey.has(refKey(ref)));
  if (missing.length > 0) {
    await openAccounts(tx, missing);
    collect(await lockAccounts(tx, missing));
  }
  return { byKey, lastPostedAt };
}

export async function findRecordedResults(tx: Tx, commandIds: string[]): Promise<Map<string, RecordedResult>> {
  const recorded = new Map<string, RecordedResult>();
  if (commandIds.length === 0) return recorded;
  const result = await prepared<{ rows: unknown[] }>(
    tx,
    'SELECT command_id, payload_hash, result FROM processed_commands WHERE command_id = ANY(?::text[])',
    [commandIds],
  );
  for (const row of result.rows as Array<{ command_id: string; payload_hash: string; result: LedgerResultV1 }>) {
    recorded.set(row.command_id, { payloadHash: row.payload_hash, result: row.result });
  }
  return recorded;
}

/** A journal entry as found by the command that posted it. */
export interface EntryOfCommand {
  commandId: string;
  entryId: string;
  tenantId: string;
  environment: Environment;
  kind: string;
  referenceType: string;
  referenceId: string;
  createdAt: Date;
}

/**
 * The entries `commandIds` posted, by the UNIQUE index on journal_entries.command_key (the
 * command id's time and MD5, migration 20270102120000_ordered_journal_keys): what still tells a
 * command posted once retention purged its recorded result.
 * Only read after a batch met that index's refusal, so the posting path pays nothing for it.
 */
export async function findEntriesOfCommands(tx: Tx, commandIds: string[]): Promise<Map<string, EntryOfCommand>> {
  const found = new Map<string, EntryOfCommand>();
  if (commandIds.length === 0) return found;
  const result = await prepared<{ rows: unknown[] }>(
    tx,
    `SELECT k.command_id, e.id, e.tenant_id, e.environment, e.kind, e.reference_type, e.reference_id, e.created_at
       FROM unnest(?::text[]) AS k(command_id) JOIN journal_entries e ON e.command_key = command_key(k.command_id)`,
    [commandIds],
  );
  for (const row of result.rows as Array<{
    command_id: string;
    id: string;
    tenant_id: string;
    environment: Environment;
    kind: string;
    reference_type: string;
    reference_id: string;
    created_at: Date;
  }>) {
    found.set(row.command_id, {
      commandId: row.command_id,
      entryId: row.id,
      tenantId: row.tenant_id,
      environment: row.environment,
      kind: row.kind,
      referenceType: row.reference_type,
      referenceId: row.reference_id,
      createdAt: row.created_at,
    });
  }
  return found;
}

/** True for the refusal of a second entry for one command id: its first entry's recorded result was purged. */
export function isCommandAlreadyPosted(error: unknown): boolean {
  const failure = error as { code?: unknown; constraint?: unknown } | null;
  return failure?.code === '23505' && failure.constraint === 'journal_entries_command_key';
}

export async function findExistingEntries(
  tx: Tx,
  refs: Array<{ tenantId: string; environment: string; entryId: string }>,
): Promise<Set<string>> {
  const found = new Set<string>();
  if (refs.length === 0) return found;
  const result = await prepared<{ rows: unknown[] }>(
    tx,
    `SELECT e.tenant_id, e.environment, e.id FROM journal_entries e
       JOIN unnest(?::text[], ?::text[], ?::text[]) AS k(tenant_id, environment, id)
         ON e.tenant_id = k.tenant_id AND e.environment = k.environment AND e.id = k.id`,
    [refs.map((ref) => ref.tenantId), refs.map((ref) => ref.environment), refs.map((ref) => ref.entryId)],
  );
  for (const row of result.rows as Array<{ tenant_id: string; environment: string; id: string }>)
    found.add(`${row.tenant_id}|${row.environment}|${row.id}`);
  return found;
}

/** Every line moves its account, so the batch's moved accounts name every line's account. */
function accountNumOf(numOf: ReadonlyMap<string, string>, accountId: string): string {
  const num = numOf.get(accountId);
  if (num === undefined) throw new Error(`account ${accountId} has a line but is not among the batch's moved accounts`);
  return num;
}

/** Everything a batch writes once it is planned. */
export interface BatchWrites {
  entries: readonly PlannedEntry[];
  /** Accounts the batch moved or froze, with their new balance and status (deltas summed in memory); each remembers createdAt. */
  accounts: readonly AccountState[];
  /** Results of the batch's new commands, each serialized once. */
  results: ReadonlyArray<{ payloadHash: string; result: LedgerResultV1; resultText: string }>;
  /** The batch's events, published after the commit. */
  events: readonly OutboxMessage[];
  /** The batch's stamp: never before the last stamp of any account it locked (stampOfBatch). */
  createdAt: Date;
}

/**
 * Writes a planned batch as one statement, one array per column: entries (their sequence
 * numbers flow from INSERT ... RETURNING into the lines), lines, the accounts' new balances and
 * statuses, the commands' recorded results and the outbox rows of the batch's events. Every
 * part of a WITH statement runs to completion whether or not it is read, and an empty array
 * makes its part a no-op, so the text never changes and stays one prepared statement.
 */
export async function writeBatch(tx: Tx, batch: BatchWrites): Promise<void> {
  const { entries, accounts, results, events, createdAt } = batch;
  if (entries.length === 0 && accounts.length === 0 && results.length === 0 && events.length === 0) return;
  const numOf = new Map(accounts.map((account) => [account.id, account.num]));
  const lines = entries.flatMap((entry) =>
    entry.lines.map((line) => ({ entryId: entry.id, line, accountNum: accountNumOf(numOf, line.accountId) })),
  );
  const outbox = outboxInsertStatement(events);
  await prepared(
    tx,
    `WITH entries AS (
       INSERT INTO journal_entries (id, tenant_id, environment, kind, reference_type, reference_id, reverses_entry_id, command_key, created_at)
       SELECT id, tenant_id, environment, kind, reference_type, reference_id, reverses_entry_id, command_key(command_id), ?::timestamptz
         FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
           AS u(id, tenant_id, environment, kind, reference_type, reference_id, reverses_entry_id, command_id)
       RETURNING id, seq
     ), lines AS (
       INSERT INTO journal_lines (entry_seq, account_num, line_no, direction, amount, balance_after)
       SELECT entries.seq, l.account_num, l.line_no, l.direction, l.amount, l.balance_after
         FROM unnest(?::text[], ?::bigint[], ?::smallint[], ?::text[], ?::numeric[], ?::numeric[])
           AS l(entry_id, account_num, line_no, direction, amount, balance_after)
         JOIN entries ON entries.id = l.entry_id
     ), balances AS (
       UPDATE accounts a SET balance = u.balance, status = u.status, last_posted_at = ?::timestamptz
         FROM unnest(?::text[], ?::numeric[], ?::text[]) AS u(id, balance, status)
        WHERE a.id = u.id
     ), results AS (
       INSERT INTO processed_commands (command_id, tenant_id, payload_hash, result)
       SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::json[])
     ), events AS (
       ${outbox.sql}
     )
     SELECT 1`,
    [
      createdAt.toISOString(),
      entries.map((entry) => entry.id),
      entries.map((entry) => entry.tenantId),
      entries.map((entry) => entry.environment),
      entries.map((entry) => entry.kind),
      entries.map((entry) => entry.referenceType),
      entries.map((entry) => entry.referenceId),
      sqlArray(entries.map((entry) => entry.reversesEntryId)),
      entries.map((entry) => entry.commandId),
      lines.map((item) => item.entryId),
      lines.map((item) => item.accountNum),
      sqlArray(lines.map((item) => item.line.lineNo)),
      lines.map((item) => item.line.direction),
      lines.map((item) => item.line.amount.toFixed()),
      lines.map((item) => item.line.balanceAfter.toFixed()),
      createdAt.toISOString(),
      accounts.map((account) => account.id),
      accounts.map((account) => account.balance.toFixed()),
      accounts.map((account) => account.status),
      results.map((item) => item.result.commandId),
      results.map((item) => item.result.tenantId),
      results.map((item) => item.payloadHash),
      results.map((item) => item.resultText),
      ...outbox.bindings,
    ] as unknown as readonly Knex.RawBinding[],
  );
}
