import { type Movement, registerMovements, type RecordPostings } from '../src';

/** A listed movement with only what registerMovements reads. */
function movement(type: string, approval: Movement['approval'], postings: RecordPostings): Movement {
  return { type, referenceType: type, table: `${type}s`, kinds: [], approval, postings, source: {} as Movement['source'], routes: [] };
}

function postingsOf(type: string): RecordPostings {
  return { referenceType: type, finisher: () => Promise.resolve(), awaited: { recordType: type, table: `${type}s`, waiting: 'true' } };
}

function recorder() {
  const registered: string[] = [];
  const awaited: string[] = [];
  return {
    registered,
    awaited,
    postings: {
      register: (referenceType: string) => void registered.push(referenceType),
      awaits: (records: { recordType: string }) => void awaited.push(records.recordType),
    },
  };
}

describe('registerMovements', () => {
  it("hands the postings each listed movement's finisher and awaited records", () => {
    const { postings, registered, awaited } = recorder();
    registerMovements(postings, [
      movement('transfer', 'none', postingsOf('transfer')),
      movement('deposit', 'none', postingsOf('deposit')),
      movement('payout', { caseType: 'payout' }, postingsOf('payout')),
    ]);
    expect(registered).toEqual(['transfer', 'deposit', 'payout']);
    expect(awaited).toEqual(['transfer', 'deposit', 'payout']);
  });

  it('refuses a case type declared by two movements, before registering anything', () => {
    const { postings, registered } = recorder();
    const twice = [
      movement('payout', { caseType: 'payout' }, postingsOf('payout')),
      movement('payout_again', { caseType: 'payout' }, postingsOf('payout_again')),
    ];
    expect(() => registerMovements(postings, twice)).toThrow('case type payout is declared twice (payout_again)');
    expect(registered).toEqual([]);
  });
});
