import { CASE_TYPE_NAMES, CASE_TYPES, type CaseType, type JournalKind, type PostedEntry } from '@wallet/contracts';
import { projectEntries } from '../src/features/analytics/analytics-projection';
import { currenciesOf } from '../src/features/analytics/analytics-service';

/*
 * Pure: what the projection and the answer make of every case type contracts declare, with no
 * list of their own.
 */

function entry(kind: JournalKind, caseId: string): PostedEntry {
  return {
    journalEntryId: `je_${kind}_${caseId}`,
    tenantId: 'tn_cases',
    environment: 'live',
    kind,
    reference: { type: 'case', id: caseId },
    lines: [
      { accountName: 'revenue:fees', direction: 'DR', amount: '12.50', currencyCode: 'USD' },
      { accountName: 'suspense', direction: 'CR', amount: '12.50', currencyCode: 'USD' },
    ],
    createdAt: '2027-01-15T10:00:00.000Z',
  };
}

describe('analytics of the declared case types', () => {
  it.each(CASE_TYPE_NAMES)('%s: its hold opens a case of its type, its settle or release decides it', (caseType: CaseType) => {
    const { hold, settle, release } = CASE_TYPES[caseType].kinds;
    const opened = projectEntries([entry(hold, 'c1'), entry(hold, 'c2')]).cases;
    expect(opened.map((row) => [row.caseType, row.caseId, row.heldAmount.toFixed(2), row.resolved])).toEqual([
      [caseType, 'c1', '12.50', false],
      [caseType, 'c2', '12.50', false],
    ]);
    const decided = projectEntries([entry(settle, 'c1'), entry(release, 'c2')]).cases;
    expect(decided.map((row) => [row.caseType, row.caseId, row.resolved])).toEqual([
      [caseType, 'c1', true],
      [caseType, 'c2', true],
    ]);
  });

  it('makes no case of any other kind of entry', () => {
    expect(projectEntries([entry('transfer', 't1'), entry('payout_complete', 'p1')]).cases).toEqual([]);
  });

  it("answers each case type's pending cases in the field contracts name for it", () => {
    const pending = CASE_TYPE_NAMES.map((caseType, index) => ({
      tenantId: 'tn_cases',
      currencyCode: 'USD',
      caseType,
      count: index + 1,
      amount: `${index + 1}0.00`,
    }));
    const [currency] = currenciesOf({ byKind: [], byDay: [], classes: [], pending, lastEntryAt: null });
    for (const [index, caseType] of CASE_TYPE_NAMES.entries())
      expect(currency?.[CASE_TYPES[caseType].pending]).toEqual({ count: index + 1, amount: `${index + 1}0.00` });
  });
});
