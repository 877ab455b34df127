import { feeQuoteQuerySchema, type JournalEntry } from '@wallet/contracts';
import {
  basisPointsAsPercent,
  emptyFeeRuleForm,
  feeQuoteFormSchema,
  feeRuleBodyOf,
  feeRuleFormSchema,
  percentText,
} from '../src/books/fees';
import { entryTotals, isoToLocalInput, journalFiltersSchema, linesOfAccount, localInputToIso } from '../src/books/journal';
import { isRunFinished, mismatchCell, mismatchFields, runProgress } from '../src/books/reconciliation';
import { fieldLabel } from '../src/format/words';
import { checkForm } from '../src/forms/schema';

const entry = (id: string, lines: JournalEntry['lines']): JournalEntry => ({
  id,
  kind: 'transfer',
  tenantId: 'tn_1',
  environment: 'live',
  reference: { type: 'transfer', id: `tr_${id}` },
  reversesEntryId: null,
  lines,
  createdAt: '2026-11-23T10:00:00.000Z',
});
const line = (accountName: string, direction: 'DR' | 'CR', amount: string, currencyCode = 'USD', walletId: string | null = null) => ({
  accountId: `ac_${accountName}`,
  accountName,
  walletId,
  direction,
  amount,
  currencyCode,
});

describe('journal entries', () => {
  it('sums debits and credits per currency exactly, where floats would drift', () => {
    const totals = entryTotals([
      line('wallet:a', 'DR', '0.10', 'USD', 'wl_a'),
      line('wallet:a', 'DR', '0.20', 'USD', 'wl_a'),
      line('wallet:b', 'CR', '0.30', 'USD', 'wl_b'),
      line('wallet:c', 'DR', '9007199254740993', 'UGX', 'wl_c'),
      line('fee-revenue', 'CR', '9007199254740992', 'UGX'),
    ]);
    expect(totals).toEqual([
      { currencyCode: 'USD', debits: '0.3', credits: '0.3', balanced: true },
      { currencyCode: 'UGX', debits: '9007199254740993', credits: '9007199254740992', balanced: false },
    ]);
  });

  it("lists an account's lines from the entries that move it, every line of it, in the entries' order", () => {
    const entries = [
      entry('je_2', [
        line('wallet:a', 'DR', '5.00', 'USD', 'wl_a'),
        line('wallet:b', 'CR', '4.00', 'USD', 'wl_b'),
        line('wallet:a', 'DR', '1.00', 'KES', 'wl_ak'),
      ]),
      entry('je_1', [line('wallet:b', 'DR', '2.00', 'USD', 'wl_b'), line('wallet:a', 'CR', '2.00', 'USD', 'wl_a')]),
    ];
    expect(
      linesOfAccount(entries, 'wallet:a').map((each) => [each.entryId, each.lineIndex, each.direction, each.amount, each.currencyCode]),
    ).toEqual([
      ['je_2', 0, 'DR', '5.00', 'USD'],
      ['je_2', 2, 'DR', '1.00', 'KES'],
      ['je_1', 1, 'CR', '2.00', 'USD'],
    ]);
    expect(linesOfAccount(entries, 'wallet:a', 'wl_ak').map((each) => each.amount)).toEqual(['1.00']);
    expect(linesOfAccount(entries, 'wallet:z')).toEqual([]);
  });

  it("turns a datetime-local value into the API's timestamp and back, in the viewer's zone", () => {
    const iso = localInputToIso('2026-11-23T10:15');
    expect(iso).toBe(new Date(2026, 10, 23, 10, 15).toISOString());
    expect(isoToLocalInput(iso)).toBe('2026-11-23T10:15');
    expect(isoToLocalInput(localInputToIso('2026-11-23T10:15:07'))).toBe('2026-11-23T10:15:07');
    expect(localInputToIso('  ')).toBeUndefined();
    expect(localInputToIso('yesterday')).toBe('yesterday');
    expect(isoToLocalInput(undefined)).toBe('');
  });

  it("checks the filters with the API's journal query schema: a bad date or account name is refused before any request", () => {
    expect(checkForm(journalFiltersSchema, { kind: 'transfer', from: localInputToIso('2026-11-01T00:00') })).toEqual({
      ok: true,
      value: { kind: 'transfer', from: new Date(2026, 10, 1).toISOString() },
    });
    const refused = checkForm(journalFiltersSchema, {
      from: localInputToIso('yesterday'),
      accountName: 'no such account',
      walletId: 'tr_1',
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(Object.keys(refused.errors).sort()).toEqual(['accountName', 'from', 'walletId']);
    // Only what the tenant's GET /v1/journal takes: the operator's reference filters are not among them.
    expect(Object.keys(journalFiltersSchema.shape).sort()).toEqual(['accountName', 'from', 'kind', 'to', 'walletId']);
  });
});

describe('reconciliation mismatches', () => {
  const balances = { accountId: 'ac_1', walletId: 'wl_1', currencyCode: 'USD', materializedBalance: '10.00', sumOfLines: '9.99' };
  const unbalanced = { journalEntryId: 'je_9', currencyCode: 'KES', debits: '5.00', credits: '4.00', seq: '120' };

  it('makes a column of every field any row has: the problem, the money and the reference first, the rest in first-seen order', () => {
    expect(mismatchFields([balances, unbalanced])).toEqual([
      'materializedBalance',
      'sumOfLines',
      'debits',
      'credits',
      'accountId',
      'walletId',
      'currencyCode',
      'journalEntryId',
      'seq',
    ]);
    const line = {
      problem: 'unmatched_statement_line',
      id: 'sl_1',
      importId: 'bsi_1',
      bankCode: 'X',
      date: '2026-11-20',
      reference: 'R',
      amount: '1.00',
    };
    expect(mismatchFields([line])).toEqual(['problem', 'amount', 'reference', 'id', 'importId', 'bankCode', 'date']);
    expect(mismatchFields([])).toEqual([]);
  });

  it('names columns and problems in words', () => {
    expect(['currencyCode', 'journalEntryId', 'seq', 'maxAgeHours'].map(fieldLabel)).toEqual([
      'Currency code',
      'Journal entry id',
      'Seq',
      'Max age hours',
    ]);
    expect(mismatchCell({ problem: 'pending_slip_too_old' }, 'problem')).toEqual({ type: 'text', text: 'Pending slip too old' });
  });

  it("shows the checks' amount fields as money of the row's currency, entries and wallets as links, the rest as text", () => {
    expect(mismatchCell(balances, 'sumOfLines')).toEqual({ type: 'money', amount: '9.99', currencyCode: 'USD' });
    expect(mismatchCell(unbalanced, 'debits')).toEqual({ type: 'money', amount: '5.00', currencyCode: 'KES' });
    expect(mismatchCell(unbalanced, 'journalEntryId')).toEqual({ type: 'entry', id: 'je_9' });
    expect(mismatchCell(balances, 'walletId')).toEqual({ type: 'wallet', id: 'wl_1' });
    // A decimal that is no amount (a seq) stays text; so does an amount field without a currency.
    expect(mismatchCell(unbalanced, 'seq')).toEqual({ type: 'text', text: '120' });
    expect(mismatchCell({ amount: '1.00' }, 'amount')).toEqual({ type: 'text', text: '1.00' });
    expect(mismatchCell({ maxAgeHours: 48, detail: { a: 1 }, gone: null }, 'maxAgeHours')).toEqual({ type: 'text', text: '48' });
    expect(mismatchCell({ detail: { a: 1 } }, 'detail')).toEqual({ type: 'text', text: '{"a":1}' });
    expect(mismatchCell({ gone: null }, 'gone')).toEqual({ type: 'text', text: '—' });
  });
});

describe('full run progress', () => {
  const ledger = { phase: 'entries' as const, accounts: 0, entries: 400, lines: 1000, linesEstimate: 4000 };
  it('follows the lines checked against the estimate while entries are checked, never claiming 100 before the end', () => {
    expect(runProgress({ state: 'running', progress: { ledger, records: 7 } })).toEqual({
      label: 'Checking entries: 400 entries, 1000 lines; 7 business records checked',
      percent: 25,
    });
    expect(runProgress({ state: 'running', progress: { ledger: { ...ledger, lines: 5000 }, records: 0 } }).percent).toBe(99);
    expect(runProgress({ state: 'running', progress: { ledger: { ...ledger, linesEstimate: null }, records: 0 } }).percent).toBeNull();
  });

  it('has no percent where the run has no total, and ends at 100', () => {
    expect(runProgress({ state: 'running', progress: { ledger: { ...ledger, phase: 'accounts', accounts: 12 }, records: 3 } })).toEqual({
      label: 'Comparing accounts with their lines: 12 accounts; 3 business records checked',
      percent: null,
    });
    expect(runProgress({ state: 'running', progress: { ledger: null, records: 0 } }).percent).toBeNull();
    expect(runProgress({ state: 'queued', progress: { ledger: null, records: 0 } })).toEqual({ label: 'Waiting to start', percent: 0 });
    expect(runProgress({ state: 'succeeded', progress: { ledger: { ...ledger, phase: 'done' }, records: 9 } })).toEqual({
      label: 'Finished',
      percent: 100,
    });
    expect(runProgress({ state: 'failed', progress: { ledger: null, records: 0 } }).label).toBe('Stopped');
    expect([isRunFinished('queued'), isRunFinished('running'), isRunFinished('succeeded'), isRunFinished('failed')]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });
});

describe('the fee quote form', () => {
  it("passes what the route's query schema and the currency's amount rule accept", () => {
    expect(checkForm(feeQuoteFormSchema, { transactionType: 'payout', currencyCode: 'KWD', amount: '1250.125' })).toEqual({
      ok: true,
      value: { transactionType: 'payout', currencyCode: 'KWD', amount: '1250.125' },
    });
  });

  it('refuses an amount the server would answer 400 INVALID_AMOUNT for, which the route schema alone lets through', () => {
    for (const amount of ['10.005', '0', '1e3', '-5', '1234567890123456789']) {
      expect(feeQuoteQuerySchema.safeParse({ transactionType: 'transfer', currencyCode: 'USD', amount }).success).toBe(true);
      const checked = checkForm(feeQuoteFormSchema, { transactionType: 'transfer', currencyCode: 'USD', amount });
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(Object.keys(checked.errors)).toEqual(['amount']);
    }
    expect(checkForm(feeQuoteFormSchema, { transactionType: 'transfer', currencyCode: 'UGX', amount: '100.5' }).ok).toBe(false);
  });

  it('says what is wrong with the currency without checking an amount against a currency it does not know', () => {
    const checked = checkForm(feeQuoteFormSchema, { transactionType: 'transfer', currencyCode: 'XYZ', amount: '10.00' });
    expect(checked).toEqual({ ok: false, errors: { currencyCode: 'is not a supported currency' } });
    expect(checkForm(feeQuoteFormSchema, { transactionType: 'gift' as never, currencyCode: 'USD', amount: '' }).ok).toBe(false);
  });

  it('shows commissions and percentages exactly', () => {
    expect(basisPointsAsPercent(250)).toBe('2.5 %');
    expect(basisPointsAsPercent(1)).toBe('0.01 %');
    expect(basisPointsAsPercent(10_000)).toBe('100 %');
    expect(percentText('1.2500')).toBe('1.25 %');
    expect(percentText('0')).toBe('0 %');
  });
});

describe('the add-rule form', () => {
  const rule = (fields: Partial<typeof emptyFeeRuleForm>) =>
    checkForm(feeRuleFormSchema, feeRuleBodyOf({ ...emptyFeeRuleForm, currencyCode: 'usd', ...fields }));

  it('sends amounts as the decimal strings typed, empty fields left out, the currency upper-cased', () => {
    expect(rule({ maxAmount: ' 100.00 ', flatFee: '0', percentageFee: '1.25' })).toEqual({
      ok: true,
      value: { transactionType: 'transfer', currencyCode: 'USD', maxAmount: '100.00', flatFee: '0', percentageFee: '1.25' },
    });
    // Beyond a float's precision: still exact text.
    const large = rule({ maxAmount: '9007199254740993.01' });
    expect(large.ok && large.value.maxAmount).toBe('9007199254740993.01');
  });

  it('says at the field what the server would answer 400 for', () => {
    const errorsOf = (fields: Partial<typeof emptyFeeRuleForm>) => {
      const checked = rule(fields);
      return checked.ok ? {} : checked.errors;
    };
    expect(Object.keys(errorsOf({ flatFee: '0.001' }))).toEqual(['flatFee']);
    expect(Object.keys(errorsOf({ minFee: '-1' }))).toEqual(['minFee']);
    expect(Object.keys(errorsOf({ percentageFee: '100.5' }))).toEqual(['percentageFee']);
    expect(Object.keys(errorsOf({ percentageFee: '0.00001' }))).toEqual(['percentageFee']);
    expect(Object.keys(errorsOf({ minAmount: '200', maxAmount: '100.00' }))).toEqual(['maxAmount']);
    expect(Object.keys(errorsOf({ minFee: '5', maxFee: '1' }))).toEqual(['maxFee']);
    expect(Object.keys(errorsOf({ currencyCode: 'XYZ', flatFee: '0.001' }))).toEqual(['currencyCode']);
  });
});
