import type { Response } from 'express';
import { type CaseType, type ErrorCode, ERROR_STATUS, type JournalKind, type LedgerPostV1, type LedgerResultV1 } from '@wallet/contracts';
import {
  AppError,
  correlationIdOf,
  type Db,
  enqueueOutbox,
  errorResponse,
  type FinalAnswer,
  finalAnswersStatement,
  IdempotencyInProgressError,
  idempotencyOf,
  inSpan,
  jsonResponse,
  microBatch,
  type OutboxMessage,
  type OutboxRelay,
  sendStoredResponse,
  STATEMENT_BATCH_CONCURRENCY,
  storeFinalResponse,
  type StoredResponse,
  type TenantDirectory,
  type Tx,
} from '@wallet/kit';
import {
  ClaimRefusedError,
  finishSteps,
  insertRecords,
  type KeyWrite,
  type NewRecord,
  type PostedStep,
  type RecordClaim,
  type RecordScope,
  type RecordStep,
  type RecordTable,
  recordPosted,
  scopedOutcomesOf,
  type StepOutcome,
  stepOutcomeOf,
} from './money-command-statement';
import { type CommandAnnouncements, commandEventType, postingAnnouncer } from './postings/announcements';
import { postingMessage } from './postings/posting-message';
import type { PendingReply } from './postings/posting-replies';
import type { AwaitedRecord, AwaitedRecords, Postings, RecordPostings } from './postings/postings';
import { type AmountRule, invalidAmountError, type MovementAmount, transactionLimitError } from './transaction-limit';

/*
 * The lifecycle of a money command, once for every feature: the record, its ledger command and
 * the key's first answer (202 pending) in one statement; the command handed over to the outbox;
 * the ledger's reply awaited up to a deadline; the record finished from the reply (with the
 * caller's final answer) or, past the deadline, from the ledger's event. A feature declares its
 * record and how it reads; what the caller is told is only ever what the ledger confirmed.
 */

/** How a money command's Idempotency-Key remembers the answers of the request that creates the record. */
export interface CommandAnswers {
  /** `response` as the key keeps it, for the statement that stores it. */
  kept(response: StoredResponse): FinalAnswer;
  /** The creating statement committed with the key's first answer. */
  written(): void;
  /** A statement that stored `response` as the key's answer committed. */
  answered(response: StoredResponse): void;
  /** With the refusal recorded: it replaces the pending answer, so a replay is the refusal the client got. */
  rememberRefusal(tx: Tx, refusal: AppError): Promise<void>;
}

/** The answers of a route that runs only under a required Idempotency-Key. */
export function commandAnswersOf(response: Response, route: string): CommandAnswers {
  const key = idempotencyOf(response);
  if (!key) throw new Error(`${route} runs only under a required Idempotency-Key`);
  return {
    kept: (answer) => key.kept(answer),
    written: () => key.written(),
    answered: (answer) => key.answered(answer),
    rememberRefusal: async (tx, refusal) => {
      await storeFinalResponse(tx, key.claim, errorResponse(refusal, correlationIdOf(response)), { replaceCompleted: true });
    },
  };
}

export interface CommandResult<Shown> {
  /**
   * 201 with the ledger's entry; 202 when the ledger had not answered by the deadline; 200 for a
   * repeat of a record its natural key already holds (as it is now). A refusal is thrown (422).
   */
  status: 200 | 201 | 202;
  shown: Shown;
  /** The answer the key remembers for this request, exactly: sent as it is, not serialized again. */
  answer?: StoredResponse;
}

/** Sends a command's result: the bytes its key remembers when there are such, else the record as shown. */
export function sendCommandResult<Shown>(response: Response, result: CommandResult<Shown>): void {
  if (result.answer) sendStoredResponse(response, result.answer, { replayed: false });
  else response.status(result.status).json(result.shown);
}

/** How a record reads as to the step its creation waits for. */
export interface StepReads<Stored> {
  /** The record once the ledger posted the step's entry. */
  posted(record: Stored, journalEntryId: string): Stored;
  /** Whether a record as read holds the step's entry (201), */
  isPosted(record: Stored): boolean;
  /** or the ledger's refusal of it (thrown as the declaration's refusalOf), rather than still awaiting the ledger (202). */
  isRefused(record: Stored): boolean;
}

/**
 * The ledger's refusal of a step as the error the client gets: the ledger's code where the API
 * has it (INSUFFICIENT_FUNDS, WALLET_FROZEN), else VALIDATION_ERROR, with the message `messages`
 * has for the code, or `otherwise`'s.
 */
export function ledgerRefusal(
  failureCode: string | null,
  messages: Partial<Record<ErrorCode, string>>,
  otherwise: (reported: string) => string,
  details: Record<string, unknown>,
): AppError {
  const reported = failureCode ?? 'VALIDATION_ERROR';
  const code: ErrorCode = reported in ERROR_STATUS ? (reported as ErrorCode) : 'VALIDATION_ERROR';
  return new AppError(code, messages[code] ?? otherwise(reported), details);
}

/**
 * A movement that posts one entry, named once: `type` is its records' type (as awaited records,
 * spans and its finisher name them) and its entries' reference type; `table` holds its records;
 * `kind` is its entry's journal kind (docs/decisions/money-movements.md), or, for a movement
 * that comes in more than one way into one table (a deposit by mobile money or by bank slip),
 * the kind of each way.
 */
export interface MovementNames<Kind extends JournalKind | Readonly<Record<string, JournalKind>> = JournalKind> {
  type: string;
  table: string;
  kind: Kind;
}

/**
 * Whether a movement waits for a checker: 'none' posts at once; a case type (contracts'
 * CASE_TYPES) is a maker-checker case (MakerChecker), whose creation posts only its hold.
 */
export type Approval = 'none' | { caseType: CaseType };

/** A feature's money command: its record, the ledger step its creation waits for, and how the record reads. */
export interface MoneyCommandDeclaration<
  Draft extends { id: string },
  Stored extends RecordScope & { id: string; seq: string },
  Shown,
> extends StepReads<Stored> {
  /** The records' type, as awaited records (Postings.awaits) and spans name them. */
  recordType: string;
  /**
   * Whether the movement waits for a checker. A feature declares 'none'; MakerChecker declares
   * its hold with its case type, which then names the records (recordType is the case type).
   */
  approval: Approval;
  /** How the engine checks the amount (checkAmount, checkLimit): every movement's follows its currency's rules. */
  amount: AmountRule;
  records: RecordTable<Draft>;
  keyWrite: KeyWrite;
  step: RecordStep;
  /** The record its creating statement writes; `seq` is '' until the statement returned it. */
  created(scope: RecordScope, draft: Draft, seq: string): Stored;
  refusalOf(record: Stored): AppError;
  /** With records.claim: why a record's claim did not hold, as the error the client gets (nothing of the record was written). */
  claimRefused?(db: Db, scope: RecordScope, draft: Draft): Promise<AppError>;
  /** With keyWrite 'natural-key': the record written before under the draft's natural key, which a repeat answers with. */
  repeatOf?(db: Db, scope: RecordScope, draft: Draft): Promise<Stored | null>;
  /** Told of a refusal the ledger gave a record that the refusal does not fail (isRefused stays false: a credit stays completed). */
  onUnfailingRefusal?(record: Stored, failureCode: string): void;
  find(db: Db | Tx, scope: RecordScope, id: string): Promise<Stored | null>;
  show(record: Stored): Shown;
  /** The events its ledger results announce (docs/events.md); none for a step of a case, whose flow announces. */
  announces?: CommandAnnouncements;
  /** Records by id in one read: the announcements of a busy movement's batch of results then cost one statement. */
  findMany?: (db: Db | Tx, ids: readonly string[]) => Promise<Stored[]>;
  /** The 404 of an id this scope has no record of. */
  notFound(): AppError;
}

/** What a record that settles in one step declares: everything but how it reads, which settledRecordReads says. */
export type SettledCommandDeclaration<Draft extends { id: string }, Stored extends RecordScope & { id: string; seq: string }, Shown> = Omit<
  MoneyCommandDeclaration<Draft, Stored, Shown>,
  'created' | keyof StepReads<Stored>
>;

/** A record's money command that settles in one step: pending when written, then completed with its entry or failed with the ledger's code. */
export function settledMoneyCommand<Draft extends { id: string }, Stored extends SettledRecord, Shown>(
  declared: SettledCommandDeclaration<Draft, Stored, Shown>,
): MoneyCommandDeclaration<Draft, Stored, Shown> {
  const pending = { status: 'pending', journalEntryId: null, failureCode: null };
  // The draft is every column but the scope, seq and the settlement's three: together, the stored record.
  return {
    ...declared,
    created: (scope, draft, seq) => ({ ...draft, ...scope, seq, ...pending }) as unknown as Stored,
    ...settledRecordReads<Stored>(),
  };
}

type SettledRecord = RecordScope & { id: string; seq: string; status: string; journalEntryId: string | null; failureCode: string | null };

/** How a record of a settlement step (settlementStep) reads: pending, then completed with its entry or failed with the ledger's code. */
export function settledRecordReads<
  Stored extends { status: string; journalEntryId: string | null; failureCode: string | null },
>(): StepReads<Stored> {
  return {
    posted: (record, journalEntryId) => ({ ...record, status: 'completed', journalEntryId, failureCode: null }),
    isPosted: (record) => record.status === 'completed',
    isRefused: (record) => record.status === 'failed',
  };
}

export interface MoneyCommandRequest<Draft> {
  scope: RecordScope;
  draft: Draft;
  command: LedgerPostV1;
  /** Sent with the command, once the record is written (an audit record). */
  alsoSent?: readonly OutboxMessage[];
  /** The Idempotency-Key's answers; null under a natural key (keyWrite 'natural-key'), where the record dedupes itself. */
  answers: CommandAnswers | null;
}

/** The declared step, giving back the records' claim when the ledger refuses one. */
function commandStep<Draft>(declaration: { records: RecordTable<Draft>; step: RecordStep }): RecordStep {
  const claim = declaration.records.claim;
  return claim ? { ...declaration.step, claim: claim as RecordClaim } : declaration.step;
}

/**
 * A money command's finisher and awaited records, from its declaration alone: the ledger's
 * events finish its records (any instance, any time; a record finished already is left as it
 * is), and its records await the ledger while its step has not recorded them.
 */
export function commandPostings<Draft, Stored extends { id: string }, Shown>(
  declaration: { recordType: string; records: RecordTable<Draft>; step: RecordStep } & Partial<AnnouncingDeclaration<Stored, Shown>>,
): RecordPostings {
  const step = commandStep(declaration);
  const { announces, find, findMany, show } = declaration;
  return {
    referenceType: declaration.recordType,
    finisher: async (tx, results) => {
      await finishSteps(tx, step, scopedOutcomesOf(results));
    },
    awaited: { recordType: declaration.recordType, table: step.table, waiting: step.waiting },
    ...(announces && find && show ? { announcer: postingAnnouncer({ typeOf: commandEventType(announces), find, findMany, show }) } : {}),
  };
}

/** What a declaration that announces its results gives: the events, and how its records read and show. */
interface AnnouncingDeclaration<Stored, Shown> {
  announces: CommandAnnouncements;
  find(db: Db | Tx, scope: RecordScope, id: string): Promise<Stored | null>;
  findMany?: ((db: Db | Tx, ids: readonly string[]) => Promise<Stored[]>) | undefined;
  show(record: Stored): Shown;
}

/**
 * A step a movement takes on a record it holds (a bank slip's verification), written by the
 * feature in the engine's transaction: see MoneyCommand.runStep.
 */
export interface MoneyCommandStep<Stored> {
  scope: RecordScope;
  /** The record's id. */
  id: string;
  /** The id of the command the step posts, known before the write: the reply is awaited from before the commit. */
  commandId: string;
  /** Takes the step in the engine's transaction. */
  write(tx: Tx): Promise<TakenStep<Stored>>;
}

/** A step as its write took it. */
export interface TakenStep<Stored> {
  /** The record as the step left it. */
  record: Stored;
  /** The step's command; null when the step posts nothing after all (a refusal of the feature's own, which the record shows). */
  command: LedgerPostV1 | null;
  /** Sent with it either way (an audit record). */
  alsoSent?: readonly OutboxMessage[];
}

export interface MoneyCommandDeps {
  db: Db;
  relay: Pick<OutboxRelay, 'handOver'>;
  postings: Pick<Postings, 'replyTo' | 'expect' | 'recordedFromReply'>;
  /** How long a request waits for the ledger's answer before answering 202 pending. */
  replyTimeoutMs: number;
  /** Where the tenant's ceiling is read when the movement did not read it with its own context (amount.limit 'tenant'). */
  tenants?: Pick<TenantDirectory, 'require'>;
}

interface Posted extends PostedStep {
  answer: FinalAnswer;
}

/** Given to the rest of a run when its request has no Idempotency-Key (natural key): nothing to remember. */
const NO_ANSWERS: CommandAnswers = {
  kept: () => {
    throw new Error('a natural-key command keeps no answer');
  },
  written: () => undefined,
  answered: () => undefined,
  rememberRefusal: async () => undefined,
};

function keyTakenOver(): IdempotencyInProgressError {
  return new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
}

/** The creating statement wrote nothing: the key's owner answers for it (its replay, or 422 for another request), see the idempotency middleware. */
function keyNotWritten(keyWrite: KeyWrite): IdempotencyInProgressError {
  return keyWrite === 'first-write'
    ? new IdempotencyInProgressError('Another attempt with this Idempotency-Key came first')
    : keyTakenOver();
}

export class MoneyCommand<Draft extends { id: string }, Stored extends RecordScope & { id: string; seq: string }, Shown> {
  /** Records created in one event-loop turn are written, with their commands and answers, by one statement. */
  private readonly insert: (record: NewRecord<Draft>) => Promise<string | null>;
  /** Entries confirmed in one turn (one ledger batch's replies) are recorded, with their answers, together. */
  private readonly recordPosted: (posted: Posted) => Promise<boolean>;
  /** The declared step, giving back the records' claim when the ledger refuses one. */
  private readonly step: RecordStep;

  constructor(
    protected readonly deps: MoneyCommandDeps,
    readonly declaration: MoneyCommandDeclaration<Draft, Stored, Shown>,
  ) {
    const { approval, recordType } = declaration;
    // A case's awaited records, spans and audit actions go by its case type: a hold named otherwise would be awaited under a type no case registered.
    if (approval !== 'none' && approval.caseType !== recordType)
      throw new Error(`${recordType} is a case of type ${approval.caseType}, and must be named by it`);
    const options = { isolateFailures: true, concurrency: STATEMENT_BATCH_CONCURRENCY };
    this.step = commandStep(declaration);
    this.insert = microBatch(
      (records: NewRecord<Draft>[]) => insertRecords(deps.db, declaration.records, declaration.keyWrite, records),
      options,
    );
    this.recordPosted = microBatch(async (batch: Posted[]) => {
      const stored = await recordPosted(deps.db, this.step, batch, finalAnswersStatement(batch.map((each) => each.answer)));
      return batch.map((each) => stored.has(each.answer.claim.lockToken));
    }, options);
  }

  /** The amount's currency rules, checked before anything is read: 400 INVALID_AMOUNT. */
  checkAmount(body: MovementAmount): void {
    const error = invalidAmountError(body.amount, body.currencyCode, this.declaration.amount);
    if (error) throw error;
  }

  /**
   * The tenant's ceiling, where the declaration has one: 422 AMOUNT_EXCEEDS_LIMIT. `known` is the
   * ceiling the movement read with its own context; without it (or null, a tenant the service's
   * copy lacks) the tenant directory is asked.
   */
  async checkLimit(tenantId: string, amount: string, known?: string | null): Promise<void> {
    if (this.declaration.amount.limit === 'none') return;
    const error = transactionLimitError(amount, known ?? (await this.tenantCeiling(tenantId)));
    if (error) throw error;
  }

  /** The ceiling's refusal of an amount, for a movement that orders its refusals itself; null when within it or not limited. */
  limitError(amount: string, maxTransactionAmount: string): AppError | null {
    return this.declaration.amount.limit === 'tenant' ? transactionLimitError(amount, maxTransactionAmount) : null;
  }

  private async tenantCeiling(tenantId: string): Promise<string> {
    if (!this.deps.tenants)
      throw new Error(`${this.declaration.recordType} is limited by the tenant's ceiling but was given no tenant directory`);
    return (await this.deps.tenants.require(tenantId)).maxTransactionAmount;
  }

  /** Creates the record and gives the answer the ledger's reply allows. */
  async run(request: MoneyCommandRequest<Draft>): Promise<CommandResult<Shown>> {
    const { scope, draft, answers } = request;
    const declaration = this.declaration;
    const pendingShown = declaration.show(declaration.created(scope, draft, ''));
    const pendingAnswer = jsonResponse(202, pendingShown);
    const commandId = request.command.commandId;
    // Waiting starts before the commit: the relay may publish and the ledger answer before this resumes.
    const reply = this.deps.postings.expect(commandId, this.deps.replyTimeoutMs, { type: declaration.recordType, id: draft.id });
    const messages = [postingMessage(request.command, { replyTo: this.deps.postings.replyTo }), ...(request.alsoSent ?? [])];
    const handOver = this.deps.relay.handOver(messages);
    let created: Stored | null;
    try {
      const seq = await this.insert({ scope, draft, answer: answers ? answers.kept(pendingAnswer) : null, messages });
      if (seq === null && answers) throw keyNotWritten(declaration.keyWrite);
      answers?.written();
      created = seq === null ? null : declaration.created(scope, draft, seq);
    } catch (error) {
      handOver.abandon();
      reply.cancel();
      if (error instanceof ClaimRefusedError && declaration.claimRefused) throw await declaration.claimRefused(this.deps.db, scope, draft);
      throw error;
    }
    if (!created) {
      handOver.abandon();
      reply.cancel();
      return this.repeat(scope, draft);
    }
    // The command goes out now, batched with those of the same turn, without a relay pass.
    handOver.committed();

    const pending: CommandResult<Shown> = { status: 202, shown: pendingShown, answer: pendingAnswer };
    return this.answerFromReply(reply, { record: created, commandId, answers: answers ?? NO_ANSWERS, pending });
  }

  /**
   * The answer the ledger's reply allows: `pending` past the deadline, else the record finished
   * from the reply, in the request's trace (as the event path's finish span is in the command's).
   */
  private async answerFromReply(
    reply: PendingReply,
    step: { record: Stored; commandId: string; answers: CommandAnswers; pending: CommandResult<Shown> },
  ): Promise<CommandResult<Shown>> {
    const result = await reply.result;
    const outcome = result ? stepOutcomeOf(result) : null;
    if (!outcome) return step.pending;
    return inSpan(`finish ${this.declaration.recordType}`, {}, () => this.finish(step.record, step.commandId, outcome, step.answers));
  }

  /**
   * Takes a step on a record that exists through the lifecycle `run` gives a new one: the
   * feature's write, the step's command (naming this instance's reply queue) and what goes with
   * it in one transaction; the reply awaited up to the deadline; the record finished from the
   * reply as `run` finishes it. A step that posts nothing answers with the record as written
   * (200). There is no Idempotency-Key: the record's own state refuses a repeat (its write throws).
   */
  async runStep(step: MoneyCommandStep<Stored>): Promise<CommandResult<Shown>> {
    const { declaration, deps } = this;
    const reply = deps.postings.expect(step.commandId, deps.replyTimeoutMs, { type: declaration.recordType, id: step.id });
    const handed: { over?: ReturnType<MoneyCommandDeps['relay']['handOver']> } = {};
    let taken: TakenStep<Stored>;
    try {
      taken = await deps.db.transaction(async (tx) => {
        const written = await step.write(tx);
        if (written.command && written.command.commandId !== step.commandId)
          throw new Error(`${declaration.recordType} ${step.id}: its step posts ${written.command.commandId}, not ${step.commandId}`);
        const posting = written.command ? [postingMessage(written.command, { replyTo: deps.postings.replyTo })] : [];
        const messages = [...posting, ...(written.alsoSent ?? [])];
        await enqueueOutbox(tx, messages);
        // Handed over before the commit: no relay pass publishes them as well.
        handed.over = deps.relay.handOver(messages);
        return written;
      });
    } catch (error) {
      handed.over?.abandon();
      reply.cancel();
      throw error;
    }
    handed.over?.committed();
    if (!taken.command) {
      reply.cancel();
      return { status: 200, shown: declaration.show(taken.record) };
    }
    const pending: CommandResult<Shown> = { status: 202, shown: declaration.show(taken.record) };
    return this.answerFromReply(reply, { record: taken.record, commandId: step.commandId, answers: NO_ANSWERS, pending });
  }

  /** A repeat under a natural key: the record written first, as it is now; this one wrote nothing and sent nothing. */
  private async repeat(scope: RecordScope, draft: Draft): Promise<CommandResult<Shown>> {
    const first = await this.declaration.repeatOf?.(this.deps.db, scope, draft);
    if (!first)
      throw new Error(`${this.declaration.recordType} ${draft.id} gave way to a record under its natural key that cannot be found`);
    return { status: 200, shown: this.declaration.show(first) };
  }

  async get(scope: RecordScope, id: string): Promise<Shown> {
    const found = await this.declaration.find(this.deps.db, scope, id);
    if (!found) throw this.declaration.notFound();
    return this.declaration.show(found);
  }

  /** Its records as records that may await the ledger (the pending-age metric): those its step has not recorded yet. */
  get awaitedRecords(): AwaitedRecords {
    return { recordType: this.declaration.recordType, table: this.step.table, waiting: this.step.waiting };
  }

  /** Finishes records from the ledger's events (any instance, any time): a no-op for one finished already. */
  async finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    await finishSteps(tx, this.step, scopedOutcomesOf(results));
  }

  private async finish(created: Stored, commandId: string, outcome: StepOutcome, answers: CommandAnswers): Promise<CommandResult<Shown>> {
    const declaration = this.declaration;
    if (outcome.status === 'posted') return this.complete(created, commandId, outcome.journalEntryId, answers);
    const finished = await this.refuse(created, commandId, outcome, answers);
    if (declaration.isRefused(finished)) throw declaration.refusalOf(finished);
    return { status: declaration.isPosted(finished) ? 201 : 202, shown: declaration.show(finished) };
  }

  /**
   * Records the entry the ledger posted with the 201 this request will give, in one statement
   * (the event path, if it got there first, recorded the same entry).
   */
  private async complete(
    created: Stored,
    commandId: string,
    journalEntryId: string,
    answers: CommandAnswers,
  ): Promise<CommandResult<Shown>> {
    const shown = this.declaration.show(this.declaration.posted(created, journalEntryId));
    const scope = this.scopeOf(created);
    if (answers === NO_ANSWERS) {
      await finishSteps(this.deps.db, this.step, [{ scope, id: created.id, outcome: { status: 'posted', journalEntryId } }]);
      this.deps.postings.recordedFromReply(commandId);
      return { status: 201, shown };
    }
    const answer = jsonResponse(201, shown);
    const stored = await this.recordPosted({ scope, record: created, journalEntryId, answer: answers.kept(answer) });
    // Recorded either way (the entry is unconditional on the key): its event needs no finisher statement.
    this.deps.postings.recordedFromReply(commandId);
    if (!stored) throw keyTakenOver();
    answers.answered(answer);
    return { status: 201, shown, answer };
  }

  /**
   * Records the ledger's refusal with the 422 this request will give, in one transaction; or
   * reads the outcome recorded first by the event path.
   */
  private async refuse(created: Stored, commandId: string, outcome: StepOutcome, answers: CommandAnswers): Promise<Stored> {
    const declaration = this.declaration;
    const scope = this.scopeOf(created);
    const finished = await this.deps.db.transaction(async (tx) => {
      await finishSteps(tx, this.step, [{ scope, id: created.id, outcome }]);
      const current = await declaration.find(tx, scope, created.id);
      if (!current) throw new Error(`${declaration.recordType} ${created.id} vanished while it was finished`);
      if (declaration.isRefused(current)) await answers.rememberRefusal(tx, declaration.refusalOf(current));
      else if (outcome.status === 'refused') declaration.onUnfailingRefusal?.(current, outcome.failureCode);
      return current;
    });
    this.deps.postings.recordedFromReply(commandId);
    return finished;
  }

  private scopeOf(record: Stored): RecordScope {
    return { tenantId: record.tenantId, environment: record.environment };
  }
}

/** Where a command is answered, and how long a request waits for the answer. */
export interface LedgerWait {
  postings: Pick<Postings, 'replyTo' | 'expect'>;
  relay: Pick<OutboxRelay, 'wake'>;
  replyTimeoutMs: number;
}

/**
 * The same lifecycle for a command written by a transaction of the caller's (a case's decision),
 * which the caller finishes itself: `commit` writes the record and its command, naming `replyTo`
 * as the command's reply queue; the relay is woken after it; the result is the ledger's answer,
 * or null past the deadline (the ledger's event finishes the record later) or when `sent` says
 * the commit sent no command after all. Waiting starts before the commit, since the ledger may
 * answer before the commit returns.
 */
export async function commitAndAwait<Committed>(
  wait: LedgerWait,
  command: { id: string; record: AwaitedRecord },
  commit: (replyTo: string | undefined) => Promise<Committed>,
  sent: (committed: Committed) => boolean = () => true,
): Promise<{ committed: Committed; result: LedgerResultV1 | null }> {
  const pending = wait.postings.expect(command.id, wait.replyTimeoutMs, command.record);
  let committed: Committed;
  try {
    committed = await commit(wait.postings.replyTo);
  } catch (error) {
    pending.cancel();
    throw error;
  }
  wait.relay.wake();
  if (sent(committed)) return { committed, result: await pending.result };
  pending.cancel();
  return { committed, result: null };
}
