import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import {
  commandIdSchema,
  environmentSchema,
  ledgerCommandSchema,
  ledgerCommandsV1Schema,
  type LedgerEntriesPostedV1,
  ledgerResultRoutingKey,
  type LedgerResultV1,
  type PostedEntry,
  POSTED_ENTRIES_PER_EVENT_MAX,
  TOPOLOGY,
} from '@wallet/contracts';
import { type Db, type OutboxMessage, type OutboxRelay, type Tx } from '@wallet/kit';
import { currencyNamedBy } from '../accounts/account-rules';
import { assertEpochs } from '../partitions/partition-epochs';
import {
  type AccountState,
  type CommandOutcome,
  type DecodedCommand,
  type PlannedEntry,
  planBatch,
  type RecordedResult,
} from './posting-planner';
import {
  type AccountRef,
  type EntryOfCommand,
  findEntriesOfCommands,
  findExistingEntries,
  findRecordedResults,
  loadAccountsForUpdate,
  writeBatch,
} from './posting-store';

export type Decoded = DecodedCommand | { type: 'undecodable'; reason: string };

function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The DTO step: one command's JSON value to a typed command. The payload hash covers everything
 * but the correlation id and trace context, so a genuine retry matches and a changed command does not.
 * `rawForHash` is what a command too malformed to parse is hashed by.
 */
function decodeCommandValue(raw: unknown, rawForHash: () => string | Buffer): Decoded {
  const parsed = ledgerCommandSchema.safeParse(raw);
  if (parsed.success) {
    const { correlationId: _correlation, traceparent: _parent, tracestate: _state, ...hashed } = parsed.data;
    const payloadHash = sha256(JSON.stringify(hashed));
    return parsed.data.type === 'ledger.post.v1'
      ? { type: 'ledger.post.v1', commandId: parsed.data.commandId, payloadHash, command: parsed.data }
      : { type: 'ledger.wallet-status.v1', commandId: parsed.data.commandId, payloadHash, command: parsed.data };
  }
  // Answer a malformed command when we know whose it is; otherwise it can only be dead-lettered.
  const envelope = raw as { commandId?: unknown; tenantId?: unknown; environment?: unknown } | null;
  const commandId = commandIdSchema.safeParse(envelope?.commandId);
  const environment = environmentSchema.safeParse(envelope?.environment);
  if (!commandId.success || typeof envelope?.tenantId !== 'string' || !environment.success) {
    return { type: 'undecodable', reason: 'no commandId, tenantId or environment' };
  }
  const message = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'command'}: ${issue.message}`).join('; ');
  return {
    type: 'invalid',
    commandId: commandId.data,
    payloadHash: sha256(rawForHash()),
    tenantId: envelope.tenantId,
    environment: environment.data,
    message,
  };
}

/** One command as it arrived, with the correlation id its answer carries. */
export interface ArrivedCommand {
  correlationId: string | undefined;
  command: DecodedCommand;
}

export type DecodedMessage = { type: 'undecodable'; reason: string } | { type: 'commands'; commands: ArrivedCommand[] };

/**
 * A message of the command queue to its commands: a lone command (answered with the message's
 * correlation id) or a `ledger.commands.v1` carrying several (each with its own). A message
 * with any command that names no owner is unreadable as a whole and is dead-lettered whole: no
 * writer of this system sends one, so it is kept for a person to look at rather than half run.
 */
export function decodeMessage(content: Buffer, correlationId: string | undefined): DecodedMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(content.toString('utf8'));
  } catch {
    return { type: 'undecodable', reason: 'not JSON' };
  }
  if (typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'ledger.commands.v1') {
    const envelope = ledgerCommandsV1Schema.safeParse(raw);
    if (!envelope.success) return { type: 'undecodable', reason: 'malformed ledger.commands.v1' };
    const commands: ArrivedCommand[] = [];
    for (const [index, item] of envelope.data.commands.entries()) {
      const decoded = decodeCommandValue(item.command, () => JSON.stringify(item.command) ?? '');
      if (decoded.type === 'undecodable')
        return { type: 'undecodable', reason: `command ${index} of ledger.commands.v1: ${decoded.reason}` };
      commands.push({ correlationId: item.correlationId ?? undefined, command: decoded });
    }
    return { type: 'commands', commands };
  }
  const decoded = decodeCommandValue(raw, () => content);
  return decoded.type === 'undecodable' ? decoded : { type: 'commands', commands: [{ correlationId, command: decoded }] };
}

function accountRefsOf(commands: DecodedCommand[]): AccountRef[] {
  const refs: AccountRef[] = [];
  for (const decoded of commands) {
    if (decoded.type === 'ledger.wallet-status.v1') {
      const { command } = decoded;
      refs.push({
        tenantId: command.tenantId,
        environment: command.environment,
        currencyCode: command.currencyCode,
        name: command.accountName,
        walletId: command.walletId,
      });
    } else if (decoded.type === 'ledger.post.v1') {
      const { command } = decoded;
      for (const line of command.lines) {
        const named = currencyNamedBy(line.accountName);
        if (named !== null && named !== line.currencyCode) continue; // rejected by the planner; never open such an account
        refs.push({
          tenantId: command.tenantId,
          environment: command.environment,
          currencyCode: line.currencyCode,
          name: line.accountName,
          walletId: line.walletId ?? null,
        });
      }
    }
  }
  return refs;
}

/**
 * The batch's new results as `ledger.results.v1` events, one per routing key (status and
 * reference type), built from each result's text serialized once. A command's new result
 * exists once, so the first command id names its event for the outbox's unique message id.
 */
/**
 * The batch's result events: the new results', and a repeat's result again, since its sender may
 * have lost the first (a database restored to before it), under a message id of its own (the
 * first event's row may still be in the outbox).
 */
function resultEventsOf(outcomes: ReadonlyArray<{ result: LedgerResultV1; resultText: string; isNew: boolean }>): OutboxMessage[] {
  const sent = outcomes.filter((outcome) => outcome.result.commandType !== 'ledger.wallet-status.v1');
  const repeats = sent.filter((outcome) => !outcome.isNew);
  return [...resultEvents(sent.filter((outcome) => outcome.isNew)), ...resultEvents(repeats, `:again:${randomUUID()}`)];
}

export function resultEvents(outcomes: ReadonlyArray<{ result: LedgerResultV1; resultText: string }>, idSuffix = ''): OutboxMessage[] {
  const byRoutingKey = new Map<string, Array<{ result: LedgerResultV1; resultText: string }>>();
  for (const outcome of outcomes) {
    const key = ledgerResultRoutingKey(outcome.result.status, outcome.result.reference?.type ?? null);
    const group = byRoutingKey.get(key);
    if (group) group.push(outcome);
    else byRoutingKey.set(key, [outcome]);
  }
  return [...byRoutingKey].map(([routingKey, group]) => ({
    payloadText: `{"type":"ledger.results.v1","results":[${group.map((outcome) => outcome.resultText).join(',')}]}`,
    messageId: `${(group[0] as { result: LedgerResultV1 }).result.commandId}:results${idSuffix}`,
    exchange: TOPOLOGY.ledgerEvents.exchange,
    routingKey,
    type: 'ledger.results.v1',
    payload: null,
  }));
}

/**
 * The batch's entries as `ledger.entries-posted.v1` events: one outbox row per hundred entries
 * rather than one per entry, so read models cost the posting transaction next to nothing. Lines
 * are named from the locked accounts, exactly as the commands named them.
 */
export function entriesPostedEvents(
  entries: readonly PlannedEntry[],
  accounts: ReadonlyMap<string, AccountState>,
  createdAt: Date,
): OutboxMessage[] {
  if (entries.length === 0) return [];
  const byId = new Map<string, AccountState>();
  for (const account of accounts.values()) byId.set(account.id, account);
  const posted: PostedEntry[] = entries.map((entry) => ({
    journalEntryId: entry.id,
    tenantId: entry.tenantId,
    environment: entry.environment,
    kind: entry.kind as PostedEntry['kind'],
    reference: { type: entry.referenceType, id: entry.referenceId },
    ...(entry.reversesEntryId !== null ? { reversesEntryId: entry.reversesEntryId } : {}),
    lines: entry.lines.map((line) => {
      const account = byId.get(line.accountId);
      if (!account) throw new Error(`account ${line.accountId} of entry ${entry.id} was not loaded`);
      return {
        accountName: account.name,
        ...(account.walletId !== null ? { walletId: account.walletId } : {}),
        direction: line.direction,
        amount: line.amount.toFixed(),
        currencyCode: line.currencyCode,
      };
    }),
    createdAt: createdAt.toISOString(),
  }));
  const messages: OutboxMessage[] = [];
  for (let start = 0; start < posted.length; start += POSTED_ENTRIES_PER_EVENT_MAX) {
    const chunk = posted.slice(start, start + POSTED_ENTRIES_PER_EVENT_MAX);
    const payload: LedgerEntriesPostedV1 = { type: 'ledger.entries-posted.v1', entries: chunk };
    messages.push({
      // Entry ids are unique, so the first one names the chunk for the outbox's unique message id.
      messageId: `${(chunk[0] as PostedEntry).journalEntryId}:entries-posted`,
      exchange: TOPOLOGY.ledgerEvents.exchange,
      routingKey: TOPOLOGY.ledgerEvents.entriesPostedRoutingKey,
      type: payload.type,
      payload,
    });
  }
  return messages;
}

/**
 * The result a command whose record retention purged was answered with, rebuilt from the entry
 * it posted. Without the command's hash, "the same command" is its kind, scope and reference:
 * another command under that id is COMMAND_ID_REUSED (an empty hash never matches); the lines
 * are not compared.
 */
function resultFromEntry(decoded: DecodedCommand, entry: EntryOfCommand): RecordedResult {
  const same =
    decoded.type === 'ledger.post.v1' &&
    decoded.command.tenantId === entry.tenantId &&
    decoded.command.environment === entry.environment &&
    decoded.command.kind === entry.kind &&
    decoded.command.reference.type === entry.referenceType &&
    decoded.command.reference.id === entry.referenceId;
  return {
    payloadHash: same ? decoded.payloadHash : '',
    result: {
      type: 'ledger.result.v1',
      commandId: entry.commandId,
      commandType: 'ledger.post.v1',
      tenantId: entry.tenantId,
      environment: entry.environment,
      status: 'posted',
      journalEntryId: entry.entryId,
      reference: { type: entry.referenceType, id: entry.referenceId },
      error: null,
      duplicate: false,
      processedAt: entry.createdAt.toISOString(),
    },
  };
}

/** Adds to `recorded` the commands of the batch that posted an entry but whose record is gone. */
async function addResultsFromJournal(tx: Tx, commands: DecodedCommand[], recorded: Map<string, RecordedResult>): Promise<void> {
  const entries = await findEntriesOfCommands(tx, [
    ...new Set(commands.map((command) => command.commandId).filter((commandId) => !recorded.has(commandId))),
  ]);
  for (const decoded of commands) {
    const entry = entries.get(decoded.commandId);
    if (entry && !recorded.has(decoded.commandId)) recorded.set(decoded.commandId, resultFromEntry(decoded, entry));
  }
}

/**
 * A batch's stamp: its clock's time, but never before the stamp of an earlier batch on any
 * account it locked. So down each account's lines (in seq order) stamps never decrease, even
 * across ledger instances whose clocks disagree, and a balance as of a moment can bisect them.
 */
export function stampOfBatch(now: Date, lastPostedAt: Date | null): Date {
  return lastPostedAt !== null && lastPostedAt > now ? lastPostedAt : now;
}

/**
 * Lets batches overlap without reordering: a batch starts locking accounts only when the one
 * before it holds all of its locks, so on any shared account the earlier batch decides first,
 * and two batches never wait on each other in a cycle.
 */
export interface LockTurn {
  wait: Promise<void>;
  done: () => void;
}

export type SerializedOutcome = CommandOutcome & { resultText: string };

/** The batch before this one failed and will be retried: this one must be decided after it. */
export class OutOfTurnError extends Error {
  constructor() {
    super('the batch before this one failed; deciding after its retry');
    this.name = 'OutOfTurnError';
  }
}

/**
 * Decides and writes a batch of commands in one transaction: accounts are locked first, so a
 * result recorded by an overlapping earlier batch is visible once its locks are released;
 * then recorded results are replayed, new commands planned in order, and entries, lines,
 * balances, results and events written together. Either all of it commits or none of it does.
 */
export async function processBatch(
  db: Db,
  commands: DecodedCommand[],
  options: {
    now?: Date;
    lockTurn?: LockTurn;
    relay?: Pick<OutboxRelay, 'handOver'>;
    /**
     * Also answers commands whose recorded result retention purged from the entries they posted
     * (journal_entries.command_key, a function of the command id, is UNIQUE, so such a command can never post again; without
     * this its batch is refused). The consumer sets it when retrying a batch that was refused so.
     */
    consultJournal?: boolean;
    /**
     * Whether the batch before this one committed at its first attempt. Awaited once this
     * batch holds its locks (the earlier one never waits on them) and before it reads or
     * decides anything: when the earlier batch failed, this one gives way with
     * OutOfTurnError, so the retried earlier batch still decides first.
     */
    earlierCommitted?: Promise<boolean>;
    /** The epochs of the partitions this writer claimed for the batch: checked in its transaction (PartitionFencedError). */
    epochs?: ReadonlyMap<number, string>;
  } = {},
): Promise<SerializedOutcome[]> {
  const now = options.now ?? new Date();
  // The batch's events go out right after its commit, without waiting for a relay pass.
  let handOver = null as ReturnType<OutboxRelay['handOver']> | null;
  try {
    const outcomes = await db.transaction(async (tx) => {
      if (options.epochs) await assertEpochs(tx, options.epochs);
      await options.lockTurn?.wait;
      let locked;
      try {
        locked = await loadAccountsForUpdate(tx, accountRefsOf(commands));
      } finally {
        options.lockTurn?.done();
      }
      if (options.earlierCommitted && !(await options.earlierCommitted)) throw new OutOfTurnError();
      const accounts = locked.byKey;
      const stampedAt = stampOfBatch(now, locked.lastPostedAt);
      const recorded = await findRecordedResults(tx, [...new Set(commands.map((command) => command.commandId))]);
      if (options.consultJournal === true) await addResultsFromJournal(tx, commands, recorded);
      const reversals = commands.flatMap((decoded) =>
        decoded.type === 'ledger.post.v1' && decoded.command.reversesEntryId !== undefined && !recorded.has(decoded.commandId)
          ? [{ tenantId: decoded.command.tenantId, environment: decoded.command.environment, entryId: decoded.command.reversesEntryId }]
          : [],
      );
      const existingEntries = await findExistingEntries(tx, reversals);
      const plan = planBatch({ commands, recorded, accounts, existingEntries, now: stampedAt });
      // Each result is serialized once, for its record, its event and its reply.
      const outcomes = plan.outcomes.map((outcome) => ({ ...outcome, resultText: JSON.stringify(outcome.result) }));
      const newOutcomes = outcomes.filter((outcome) => outcome.isNew);
      const events = [...resultEventsOf(outcomes), ...entriesPostedEvents(plan.entries, accounts, stampedAt)];
      handOver = options.relay?.handOver(events) ?? null;
      await writeBatch(tx, { entries: plan.entries, accounts: plan.touchedAccounts, results: newOutcomes, events, createdAt: stampedAt });
      return outcomes;
    });
    handOver?.committed();
    return outcomes;
  } catch (error) {
    handOver?.abandon();
    throw error;
  } finally {
    options.lockTurn?.done();
  }
}
