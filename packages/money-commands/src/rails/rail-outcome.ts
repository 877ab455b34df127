import type { MakerCheckerStep } from '@wallet/contracts';
import { type CaseStepTaken, makerCheckerSteps, type ReconciledCase } from '../case-records';
import type { LaterStep } from '../maker-checker-flow';
import type { RecordStep } from '../money-command-statement';
import { filled, type RecordOf } from '../record-columns';

/*
 * What a maker-checker case delivered through a rail adds to the flow (a payout, a withdrawal):
 * after its settle, the rail's outcome is one more step, complete when the rail paid and fail
 * when it refused, each posting its own entry. The case types keep these columns in their own
 * tables, as they keep the flow's.
 */

/** The steps a rail's outcome posts: complete when it paid, fail when it refused. */
export const RAIL_STEPS = ['complete', 'fail'] as const;
export type RailStep = (typeof RAIL_STEPS)[number];

/** A delivered case's columns, spread into its spec after the flow's (CASE_STATE_COLUMNS). */
export const CASE_RAIL_COLUMNS = {
  /** The rail's reference for the delivery, once it answered. */
  railReference: filled<string | null>('text'),
  /** Why the rail failed the delivery, when it did. */
  railFailureReason: filled<string | null>('text'),
  /** The complete or fail entry once the ledger posted it. */
  outcomeEntryId: filled<string | null>('text'),
  outcomeFailureCode: filled<string | null>('text'),
};

export type CaseRailState = RecordOf<typeof CASE_RAIL_COLUMNS>;

/** A case's rail state until the rail answers: what its creation shows. */
export const UNDELIVERED: CaseRailState = { railReference: null, railFailureReason: null, outcomeEntryId: null, outcomeFailureCode: null };

/** A delivered case's complete or fail: recorded once, its entry or the ledger's refusal. */
export function railOutcomeStep(table: string): LaterStep {
  const step: RecordStep = {
    table,
    waiting: "r.status IN ('completed', 'failed') AND r.outcome_entry_id IS NULL AND r.outcome_failure_code IS NULL",
    recorded: 'outcome_entry_id = u.journal_entry_id, outcome_failure_code = u.failure_code',
  };
  return { steps: RAIL_STEPS, step };
}

/** A delivered case (completed or failed by the rail, its hold posted) whose complete or fail the ledger has not answered. */
export function awaitsOutcomeEntry(delivered: CaseRailState & { status: string; holdEntryId: string | null }): boolean {
  const answered = (delivered.status === 'completed' || delivered.status === 'failed') && delivered.holdEntryId !== null;
  return answered && delivered.outcomeEntryId === null && delivered.outcomeFailureCode === null;
}

/**
 * The steps a delivered case has taken, for check 3: the flow's (settled once approved, and
 * after), then the rail's outcome, complete or fail, once the rail answered.
 */
export function deliveredCaseSteps(
  row: ReconciledCase & { outcomeEntryId: string | null },
): Array<CaseStepTaken<MakerCheckerStep | RailStep>> {
  const outcome: RailStep | null = row.status === 'completed' ? 'complete' : row.status === 'failed' ? 'fail' : null;
  return [
    ...makerCheckerSteps(row, ['approved', 'completed', 'failed']),
    ...(outcome === null ? [] : [{ step: outcome, journalEntryId: row.outcomeEntryId }]),
  ];
}

/** A delivered case posts again while pending (its decision) or approved (the rail's outcome). */
export function deliveredCaseOpen(row: { status: string }): boolean {
  return row.status === 'pending' || row.status === 'approved';
}
