import type { LedgerResultV1 } from '@wallet/contracts';
import type { Response } from 'express';
import {
  AppError,
  IdempotencyInProgressError,
  idempotencyOf,
  type InternalClaims,
  jsonResponse,
  RetryLaterError,
  type SqlStatement,
  type Tx,
} from '@wallet/kit';
import type { StepReads } from './money-command';
import { type RecordStep, stepOutcomeOf } from './money-command-statement';

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
  if (progress.status === 'approved' || progress.status === 'rejected')
    return progress.decisionEntryId === null && progress.decisionFailureCode === null;
  return false;
}

/** awaitsLedger in SQL, on a case's row `r` (an AwaitedRecords' `waiting`). */
export const CASE_AWAITS_LEDGER_SQL = `(r.status = 'pending' AND r.hold_entry_id IS NULL)
  OR (r.status IN ('approved', 'rejected') AND r.decision_entry_id IS NULL AND r.decision_failure_code IS NULL)`;

/**
 * A maker's or checker's id in the body must be the actor the caller declared, by header or
 * session (docs/decisions/authentication.md, docs/decisions/maker-checker.md).
 */
export function checkDeclaredActor(claims: InternalClaims, bodyActorId: string, field: 'requestedBy' | 'actorId' | 'proposedBy'): void {
  if (claims.actor && claims.actor.id !== bodyActorId) {
    throw new AppError('ACTOR_MISMATCH', `${field} differs from the actor of the request`, { field });
  }
}

/**
 * Why a decision could not move its case out of pending, read after it tried: a case still
 * pending waits for the ledger to confirm its hold and may be decided once it has (nothing
 * changed, retry); any other was decided already, or failed, for good.
 */
export function undecidableCaseError(current: { status: string }): AppError {
  if (current.status === 'pending') {
    return new RetryLaterError(
      'CASE_HOLD_IN_PROGRESS',
      'The ledger has not confirmed the hold of this case yet; retry shortly',
      CASE_HOLD_RETRY_AFTER_SECONDS,
      {
        status: 'pending',
        awaitingLedger: true,
      },
    );
  }
  return new AppError('CASE_NOT_PENDING', `The case is ${current.status}, not pending`, { status: current.status });
}

/** How a decision's Idempotency-Key, when one guards the call, keeps the answer this request gives. */
export interface DecisionAnswers<Shown> {
  /** The 202 (the decision awaits the ledger), stored in the decision's transaction: what a retry gets unless the 200 replaces it. */
  accepted(tx: Tx, shown: Shown): Promise<void>;
  /** The 200 of a decision that sends nothing to the ledger (a first of two approvals), stored in its transaction. */
  recorded(tx: Tx, shown: Shown): Promise<void>;
  /** The 200 as a part of the statement that records the posted entry; `answered` once that committed. */
  confirmed(shown: Shown): { statement: SqlStatement; answered(): void };
}

/** Without a key there is nothing to store: the statement part yields the row its caller counts. */
const NO_ANSWER_TO_STORE: SqlStatement = { sql: 'SELECT CAST(NULL AS uuid) AS lock_token', bindings: [] };

export function decisionAnswersOf<Shown>(response: Response): DecisionAnswers<Shown> {
  const key = idempotencyOf(response);
  if (!key) {
    const nothing = () => Promise.resolve();
    return { accepted: nothing, recorded: nothing, confirmed: () => ({ statement: NO_ANSWER_TO_STORE, answered: () => undefined }) };
  }
  return {
    accepted: (tx, shown) => key.complete(tx, jsonResponse(202, shown)),
    recorded: (tx, shown) => key.complete(tx, jsonResponse(200, shown)),
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
export async function answerDecision<Shown>(
  result: LedgerResultV1 | null,
  recorder: DecisionRecorder<Shown>,
  answers: DecisionAnswers<Shown>,
  step: string,
): Promise<DecisionResult<Shown>> {
  const outcome = result ? stepOutcomeOf(result) : null;
  if (!outcome) return { status: 202, shown: recorder.show(null) };
  if (outcome.status === 'refused') {
    await recorder.recordRefused(outcome.failureCode);
    throw new Error(`the ledger refused ${step} (${outcome.failureCode})`);
  }
  const shown = recorder.show(outcome.journalEntryId);
  const answer = answers.confirmed(shown);
  if (!(await recorder.recordPosted(outcome.journalEntryId, answer.statement)))
    throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
  answer.answered();
  return { status: 200, shown };
}

/** A case's hold: the case is pending and unconfirmed until the ledger posts it, or fails by its refusal. */
export function caseHoldStep(table: string): RecordStep {
  return {
    table,
    waiting: "r.status = 'pending' AND r.hold_entry_id IS NULL",
    recorded:
      "hold_entry_id = u.journal_entry_id, status = CASE WHEN u.failure_code IS NULL THEN r.status ELSE 'failed' END, failure_code = u.failure_code",
  };
}

/** How a case reads as to its hold: posted once it holds the hold's entry, refused once the refusal failed it. */
export function caseHoldReads<Stored extends { status: string; holdEntryId: string | null }>(): StepReads<Stored> {
  return {
    posted: (record, journalEntryId) => ({ ...record, holdEntryId: journalEntryId }),
    isPosted: (record) => record.holdEntryId !== null,
    isRefused: (record) => record.status === 'failed',
  };
}

/** A decided case's settle or release: recorded once, its entry or (never expected) the ledger's refusal. */
export function caseDecisionStep(table: string): RecordStep {
  return {
    table,
    waiting: "r.status IN ('approved', 'rejected') AND r.decision_entry_id IS NULL AND r.decision_failure_code IS NULL",
    recorded: 'decision_entry_id = u.journal_entry_id, decision_failure_code = u.failure_code',
  };
}
