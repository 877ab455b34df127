import type { LedgerResultV1 } from '@wallet/contracts';
import type { Response } from 'express';
import { AppError, type Db, IdempotencyInProgressError, idempotencyOf, jsonResponse, type OutboxRelay, prepared, RetryLaterError, type SqlStatement, type Tx } from '@wallet/kit';
import type { AwaitedRecord, Postings } from './postings/postings';

/*
 * What payouts and withdrawals share as maker-checker cases whose steps are ledger entries: the
 * hold at creation, then the settle (approval) or the release (rejection). A step's record and
 * its command commit together, the request waits for the ledger's answer up to a deadline, and
 * a case says whether the entry of the step its status names has posted yet.
 */

/** How long a decision on a case whose hold is still posting asks the client to wait. */
export const CASE_HOLD_RETRY_AFTER_SECONDS = 1;

/** A case's steps, as far as whether the ledger has answered them. */
export interface CaseProgress {
  status: string;
  holdEntryId: string | null;
  decisionEntryId: string | null;
  /** The ledger's refusal of the settle or release: never expected, but an answer all the same. */
  decisionFailureCode: string | null;
}

/**
 * Whether the ledger has yet to answer the entry of the step the status names: the hold of a
 * pending case, the settle or release of a decided one. Until it has, the status is not final.
 */
export function awaitsLedger(progress: CaseProgress): boolean {
  if (progress.status === 'pending') return progress.holdEntryId === null;
  if (progress.status === 'approved' || progress.status === 'rejected') return progress.decisionEntryId === null && progress.decisionFailureCode === null;
  return false;
}

/** awaitsLedger in SQL, on a case's row `r` (an AwaitedRecords' `waiting`). */
export const CASE_AWAITS_LEDGER_SQL = `(r.status = 'pending' AND r.hold_entry_id IS NULL)
  OR (r.status IN ('approved', 'rejected') AND r.decision_entry_id IS NULL AND r.decision_failure_code IS NULL)`;

/**
 * Why a decision could not move its case out of pending, read after it tried: a case still
 * pending waits for the ledger to confirm its hold and may be decided once it has (nothing
 * changed, retry); any other was decided already, or failed, for good.
 */
export function undecidableCaseError(current: { status: string }): AppError {
  if (current.status === 'pending') {
    return new RetryLaterError('CASE_HOLD_IN_PROGRESS', 'The ledger has not confirmed the hold of this case yet; retry shortly', CASE_HOLD_RETRY_AFTER_SECONDS, {
      status: 'pending',
      awaitingLedger: true,
    });
  }
  return new AppError('CASE_NOT_PENDING', `The case is ${current.status}, not pending`, { status: current.status });
}

export type StepOutcome = { status: 'posted'; journalEntryId: string } | { status: 'refused'; failureCode: string };

/** The ledger's answer to a step's command; null for a result that names no entry to record. */
export function stepOutcomeOf(result: LedgerResultV1): StepOutcome | null {
  if (result.status === 'posted' && result.journalEntryId) return { status: 'posted', journalEntryId: result.journalEntryId };
  if (result.status === 'rejected') return { status: 'refused', failureCode: result.error?.code ?? 'VALIDATION_ERROR' };
  return null;
}

/** Where a step's command is answered, and how long a request waits for the answer. */
export interface LedgerWait {
  postings: Pick<Postings, 'replyTo' | 'expect'>;
  relay: Pick<OutboxRelay, 'wake'>;
  replyTimeoutMs: number;
}

/**
 * Commits a step (`commit` writes its record and its command, naming `replyTo` as the command's
 * reply queue) and waits for the ledger's answer to the command: null past the deadline, when
 * the ledger's event finishes the record later. Waiting starts before the commit, since the
 * ledger may answer before the commit returns.
 */
export async function commitAndAwait<Committed>(
  wait: LedgerWait,
  command: { id: string; record: AwaitedRecord },
  commit: (replyTo: string | undefined) => Promise<Committed>,
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
  return { committed, result: await pending.result };
}

/** How a decision's Idempotency-Key, when one guards the call, keeps the answer this request gives. */
export interface DecisionAnswers<Shown> {
  /** The 202 (the decision awaits the ledger), stored in the decision's transaction: what a retry gets unless the 200 replaces it. */
  accepted(tx: Tx, shown: Shown): Promise<void>;
  /** The 200 as a part of the statement that records the posted entry; `answered` once that committed. */
  confirmed(shown: Shown): { statement: SqlStatement; answered(): void };
}

/** Without a key there is nothing to store: the statement part yields the row its caller counts. */
const NO_ANSWER_TO_STORE: SqlStatement = { sql: 'SELECT 1', bindings: [] };

export function decisionAnswersOf<Shown>(response: Response): DecisionAnswers<Shown> {
  const key = idempotencyOf(response);
  if (!key) return { accepted: () => Promise.resolve(), confirmed: () => ({ statement: NO_ANSWER_TO_STORE, answered: () => undefined }) };
  return {
    accepted: (tx, shown) => key.complete(tx, jsonResponse(202, shown)),
    confirmed: (shown) => {
      const answer = jsonResponse(200, shown);
      return { statement: key.finalAnswerStatement(answer), answered: () => key.answered(answer) };
    },
  };
}

/** How a case's service records the ledger's answer to its decision. */
export interface DecisionRecorder<Shown> {
  /** The decided case as the API shows it, with its entry once posted (null: not yet). */
  show(decisionEntryId: string | null): Shown;
  /** The posted entry and `answer` in one statement; false when the answer's part stored nothing (the key was taken over). */
  recordPosted(journalEntryId: string, answer: SqlStatement): Promise<boolean>;
  recordRefused(failureCode: string): Promise<void>;
}

export interface DecisionResult<Shown> {
  status: 200 | 202;
  shown: Shown;
}

/**
 * The answer to a decision once its wait is over: 200 when the ledger posted the entry, recorded
 * with the key's answer before the answer goes out, so anything read after it shows the money
 * moved; 202 past the deadline, the case awaiting the ledger. The ledger refusing a settle or a
 * release (suspense holds the money) is a bug: recorded for reconciliation to show, then a 500.
 */
export async function answerDecision<Shown>(result: LedgerResultV1 | null, recorder: DecisionRecorder<Shown>, answers: DecisionAnswers<Shown>, step: string): Promise<DecisionResult<Shown>> {
  const outcome = result ? stepOutcomeOf(result) : null;
  if (!outcome) return { status: 202, shown: recorder.show(null) };
  if (outcome.status === 'refused') {
    await recorder.recordRefused(outcome.failureCode);
    throw new Error(`the ledger refused ${step} (${outcome.failureCode})`);
  }
  const shown = recorder.show(outcome.journalEntryId);
  const answer = answers.confirmed(shown);
  if (!(await recorder.recordPosted(outcome.journalEntryId, answer.statement))) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
  answer.answered();
  return { status: 200, shown };
}

/**
 * Records the settle or release the ledger posted on a case of `table` and stores the caller's
 * answer, as one statement, before the answer goes out. The answer is stored even when the event
 * path recorded the entry first (the same entry). False when the answer's part stored nothing
 * (another attempt holds the key).
 */
export async function recordDecisionWithAnswer(db: Db, table: 'payout_cases' | 'withdrawals', scope: { tenantId: string; environment: string }, id: string, journalEntryId: string, answer: SqlStatement): Promise<boolean> {
  const result = await prepared<{ rows: Array<{ answered: number }> }>(
    db,
    `WITH posted AS (
       UPDATE ${table} SET decision_entry_id = ?
       WHERE id = ? AND tenant_id = ? AND environment = ? AND status IN ('approved', 'rejected') AND decision_entry_id IS NULL AND decision_failure_code IS NULL
       RETURNING id
     ),
     answer AS (${answer.sql})
     SELECT CAST(count(*) AS integer) AS answered FROM answer`,
    [journalEntryId, id, scope.tenantId, scope.environment, ...answer.bindings],
  );
  return (result.rows[0]?.answered ?? 0) > 0;
}
