import type { LedgerPostV1 } from '@wallet/contracts';
import { type Db } from '@wallet/kit';
import { checkedRecord, type LocalRecordSource, type SingleEntryRecord } from './reconciliation/business-records';

/** What reconciliation reads of a maker-checker case of any type: a record's identity, and the entries of its steps. */
export interface ReconciledCase extends Omit<SingleEntryRecord, 'journalEntryId'> {
  holdEntryId: string | null;
  decisionEntryId: string | null;
}

export interface CaseStepTaken<Step extends string> {
  step: Step;
  /** The entry the step posted; null while the ledger has not answered it. */
  journalEntryId: string | null;
}

/**
 * The maker-checker steps a case has taken, in order: its hold, then its decision, settle
 * when its status is one of `settledStatuses` (approved, and whatever follows approval),
 * release when rejected.
 */
export function makerCheckerSteps(
  row: ReconciledCase,
  settledStatuses: readonly string[],
): Array<CaseStepTaken<'hold' | 'settle' | 'release'>> {
  const steps: Array<CaseStepTaken<'hold' | 'settle' | 'release'>> = [{ step: 'hold', journalEntryId: row.holdEntryId }];
  if (row.status === 'rejected') steps.push({ step: 'release', journalEntryId: row.decisionEntryId });
  if (settledStatuses.includes(row.status)) steps.push({ step: 'settle', journalEntryId: row.decisionEntryId });
  return steps;
}

/**
 * A case type's records for reconciliation's check 3, step by step: every case whose hold
 * posted has moved money, each step it took has exactly the entry its command builds, and an
 * open case (one that will post again) may still be missing the entries it has yet to post.
 */
export function caseRecordSource<Row extends ReconciledCase, Step extends string>(source: {
  referenceType: string;
  table: string;
  byIds(db: Db, ids: readonly string[]): Promise<Row[]>;
  steps(row: Row): Array<CaseStepTaken<Step>>;
  command(row: Row, step: Step): LedgerPostV1;
  open(row: Row): boolean;
}): LocalRecordSource {
  return {
    referenceType: source.referenceType,
    table: source.table,
    async byIds(db, ids) {
      return (await source.byIds(db, ids)).map((row) => {
        const steps = source.steps(row);
        return checkedRecord(row, {
          finished: row.holdEntryId !== null,
          open: source.open(row),
          journalEntryIds: steps.flatMap(({ journalEntryId }) => (journalEntryId === null ? [] : [journalEntryId])),
          postings:
            row.holdEntryId === null
              ? []
              : steps.map(({ step, journalEntryId }) => {
                  const command = source.command(row, step);
                  return { journalEntryId, kind: command.kind, reference: command.reference, lines: command.lines };
                }),
        });
      });
    },
  };
}
