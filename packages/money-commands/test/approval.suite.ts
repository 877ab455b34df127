import { MoneyCommand, type MoneyCommandDeclaration, type MoneyCommandDeps, settlementStep } from '../src';

/** What the constructor reads of a declaration; nothing here reaches a database. */
function declaration(
  recordType: string,
  approval: MoneyCommandDeclaration<{ id: string }, never, never>['approval'],
): MoneyCommandDeclaration<{ id: string }, never, never> {
  const unused = () => {
    throw new Error('not called');
  };
  return {
    recordType,
    approval,
    amount: { limit: 'tenant' },
    records: { name: 'cases', columns: { id: 'text' } },
    keyWrite: 'held',
    step: settlementStep('cases'),
    created: unused,
    posted: unused,
    isPosted: unused,
    isRefused: unused,
    refusalOf: unused,
    find: unused,
    show: unused,
    notFound: unused,
  };
}

const deps = { db: {}, relay: {}, postings: {}, replyTimeoutMs: 10 } as unknown as MoneyCommandDeps;

describe("a money command's approval", () => {
  it('takes a movement that posts at once under any records type', () => {
    expect(new MoneyCommand(deps, declaration('transfer', 'none')).declaration.approval).toBe('none');
  });

  it('names the records of a case by its case type, and refuses any other name', () => {
    expect(new MoneyCommand(deps, declaration('payout', { caseType: 'payout' })).awaitedRecords.recordType).toBe('payout');
    expect(() => new MoneyCommand(deps, declaration('payout_case', { caseType: 'payout' }))).toThrow(
      'payout_case is a case of type payout, and must be named by it',
    );
  });
});
