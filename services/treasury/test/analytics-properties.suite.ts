import { randomUUID } from 'node:crypto';
import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import {
  formatAmount,
  type JournalKind,
  type PostedEntry,
  type PostingLine,
  tenantAnalyticsSchema,
  type WithdrawalMethod,
  type WithdrawalSource,
} from '@wallet/contracts';
import { LedgerCommandClient } from '@wallet/money-commands';
import { waitFor } from '@wallet/kit/testing';
import { accountClassOf } from '../src/features/analytics/analytics-projection';
import { currenciesOf } from '../src/features/analytics/analytics-service';
import { applyEntries, readAnalytics } from '../src/features/analytics/analytics-store';
import { type WithdrawalStep, withdrawalPostCommand } from '../src/features/withdrawals/withdrawal-posting';
import { type Caller, startTreasuryHarness, type TreasuryHarness } from './support';

/**
 * Real parts: the ledger and treasury, as in analytics.suite.ts. Random money movements go to the
 * real ledger (some are refused for want of funds, as they would be); the analytics must then
 * equal what the tenant's journal and account balances add up to, computed straight from the
 * ledger's tables with the definitions of docs/analytics.md.
 */
let harness: TreasuryHarness;
let ledger: LedgerCommandClient;

beforeAll(async () => {
  harness = await startTreasuryHarness({ GATEWAY_INTERNAL_URL: 'http://127.0.0.1:9', TREASURY_GATEWAY_TIMEOUT_MS: '200' });
  ledger = await LedgerCommandClient.connect(harness.amqpUrl, 'analytics-properties');
});

afterAll(async () => {
  await ledger?.close();
  await harness?.close();
});

const WALLETS = [0, 1, 2].map((index) => `wl_prop${index}`);
const money = (cents: number): string => new BigNumber(cents).shiftedBy(-2).toFixed(2);

type Action =
  | { kind: 'deposit'; wallet: number; cents: number; feeCents: number; bps: number }
  | { kind: 'transfer'; from: number; to: number; cents: number; feeCents: number; bps: number }
  | { kind: 'float'; cents: number }
  | { kind: 'payout'; wallet: number; cents: number; feeCents: number; outcome: 'settle' | 'release' | 'pending' | 'fail' }
  | { kind: 'withdrawal'; source: WithdrawalSource; method: WithdrawalMethod; cents: number; outcome: WithdrawalOutcome };

/** How far a withdrawal goes: held only, released, settled, or settled and then delivered or failed by the rail. */
type WithdrawalOutcome = 'pending' | 'release' | 'settle' | 'complete' | 'fail';
const WITHDRAWAL_STEPS_AFTER_HOLD: Record<WithdrawalOutcome, WithdrawalStep[]> = {
  pending: [],
  release: ['release'],
  settle: ['settle'],
  complete: ['settle', 'complete'],
  fail: ['settle', 'fail'],
};

const wallet = fc.integer({ min: 0, max: WALLETS.length - 1 });
const cents = fc.integer({ min: 100, max: 20_000 });
const feeCents = fc.integer({ min: 0, max: 99 });
const bps = fc.constantFrom(0, 1000, 2500);
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('deposit' as const), wallet, cents, feeCents, bps }) },
  {
    weight: 3,
    arbitrary: fc
      .record({ kind: fc.constant('transfer' as const), from: wallet, to: wallet, cents, feeCents, bps })
      .filter((item) => item.from !== item.to),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('float' as const), cents }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('withdrawal' as const),
      source: fc.constantFrom<WithdrawalSource>('tenant_fees', 'operating_float'),
      method: fc.constantFrom<WithdrawalMethod>('momo', 'bank', 'cash'),
      cents,
      outcome: fc.constantFrom<WithdrawalOutcome>('pending', 'release', 'settle', 'complete', 'fail'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('payout' as const),
      wallet,
      cents,
      feeCents,
      outcome: fc.constantFrom('settle' as const, 'release' as const, 'pending' as const, 'fail' as const),
    }),
  },
);

const walletLine = (index: number, direction: 'DR' | 'CR', amountCents: number): PostingLine => {
  const walletId = WALLETS[index] as string;
  return { accountName: `wallet:${walletId}`, walletId, direction, amount: money(amountCents), currencyCode: 'USD' };
};
const line = (accountName: string, direction: 'DR' | 'CR', amountCents: number): PostingLine => ({
  accountName,
  direction,
  amount: money(amountCents),
  currencyCode: 'USD',
});
/** Fee lines of section 7; amounts of zero are left out (the ledger refuses them). */
function feeLines(fee: number, commissionBps: number): PostingLine[] {
  const commission = Math.round((fee * commissionBps) / 10_000);
  return [
    ...(fee > 0 ? [line('revenue:fees', 'CR', fee)] : []),
    ...(commission > 0 ? [line('revenue:fees', 'DR', commission), line('platform-commission', 'CR', commission)] : []),
  ];
}

async function post(caller: Caller, kind: JournalKind, referenceId: string, lines: PostingLine[]): Promise<boolean> {
  const result = await ledger.request({
    type: 'ledger.post.v1',
    commandId: `prop-${randomUUID()}`,
    tenantId: caller.tenantId,
    environment: caller.environment,
    kind,
    reference: { type: kind, id: referenceId },
    lines,
  });
  return result.status === 'posted';
}

async function run(caller: Caller, item: Action): Promise<void> {
  switch (item.kind) {
    case 'deposit':
      await post(caller, 'momo_deposit', randomUUID(), [
        line('momo-float:mtn', 'DR', item.cents),
        ...(item.cents > item.feeCents ? [walletLine(item.wallet, 'CR', item.cents - item.feeCents)] : []),
        ...feeLines(item.feeCents, item.bps),
      ]);
      return;
    case 'transfer':
      await post(caller, 'transfer', randomUUID(), [
        walletLine(item.from, 'DR', item.cents),
        ...(item.feeCents > 0 ? [walletLine(item.from, 'DR', item.feeCents)] : []),
        walletLine(item.to, 'CR', item.cents),
        ...feeLines(item.feeCents, item.bps),
      ]);
      return;
    case 'float':
      await post(caller, 'tenant_float_deposit', randomUUID(), [
        line('asset:pool:USD', 'DR', item.cents),
        line('asset:bank-clearing:USD', 'CR', item.cents),
      ]);
      return;
    case 'payout': {
      const caseId = `po_${randomUUID().slice(0, 8)}`;
      const held = item.cents + item.feeCents;
      if (!(await post(caller, 'payout_hold', caseId, [walletLine(item.wallet, 'DR', held), line('suspense', 'CR', held)]))) return;
      if (item.outcome === 'pending') return;
      if (item.outcome === 'release') {
        await post(caller, 'payout_release', caseId, [line('suspense', 'DR', held), walletLine(item.wallet, 'CR', held)]);
        return;
      }
      await post(caller, 'payout_settle', caseId, [
        line('suspense', 'DR', held),
        line('payout-clearing', 'CR', item.cents),
        ...feeLines(item.feeCents, 0),
      ]);
      if (item.outcome === 'fail') {
        // The rail failed: the amount back to the wallet and the fee refunded by reversing its lines.
        const refund = item.feeCents > 0 ? [line('revenue:fees', 'DR', item.feeCents), walletLine(item.wallet, 'CR', item.feeCents)] : [];
        await post(caller, 'payout_fail', caseId, [
          line('payout-clearing', 'DR', item.cents),
          walletLine(item.wallet, 'CR', item.cents),
          ...refund,
        ]);
      }
      return;
    }
    case 'withdrawal': {
      // Treasury's own builder: the lines the delivered (or refused) withdrawal really posts.
      const record = { id: `pc_${randomUUID().slice(0, 8)}`, ...caller, currencyCode: 'USD', amount: money(item.cents) };
      const withdrawal = { ...record, source: item.source, payoutMethod: item.method };
      // Refused when the source does not hold the amount, as it would be.
      if ((await ledger.request(withdrawalPostCommand(withdrawal, 'hold'))).status !== 'posted') return;
      for (const step of WITHDRAWAL_STEPS_AFTER_HOLD[item.outcome]) await ledger.request(withdrawalPostCommand(withdrawal, step));
      return;
    }
  }
}

interface JournalRow {
  entry_id: string;
  kind: JournalKind;
  reference_id: string;
  name: string;
  direction: 'DR' | 'CR';
  amount: string;
}

/** The tenant's figures computed from the ledger's own tables, with the definitions of docs/analytics.md. */
async function fromTheJournal(caller: Caller) {
  const rows = (await harness
    .ledgerDb('journal_entries as e')
    .join('journal_lines as l', 'l.entry_seq', 'e.seq')
    .join('accounts as a', 'a.num', 'l.account_num')
    .where({ 'e.tenant_id': caller.tenantId, 'e.environment': caller.environment, 'a.currency_code': 'USD' })
    .select('e.id as entry_id', 'e.kind', 'e.reference_id', 'a.name', 'l.direction', 'l.amount')) as JournalRow[];
  const byKind = new Map<JournalKind, { entries: Set<string>; volume: BigNumber; feeRevenue: BigNumber; platformCommission: BigNumber }>();
  const holds = new Map<string, BigNumber>();
  const outcomes = new Set<string>();
  const withdrawalHolds = new Map<string, BigNumber>();
  for (const row of rows) {
    const figures = byKind.get(row.kind) ?? {
      entries: new Set<string>(),
      volume: new BigNumber(0),
      feeRevenue: new BigNumber(0),
      platformCommission: new BigNumber(0),
    };
    figures.entries.add(row.entry_id);
    const signed = row.direction === 'CR' ? new BigNumber(row.amount) : new BigNumber(row.amount).negated();
    if (row.direction === 'DR' && row.name !== 'revenue:fees' && row.name !== 'platform-commission')
      figures.volume = figures.volume.plus(row.amount);
    if (row.name === 'revenue:fees' && !row.kind.startsWith('withdrawal_')) figures.feeRevenue = figures.feeRevenue.plus(signed);
    if (row.name === 'platform-commission') figures.platformCommission = figures.platformCommission.plus(signed);
    byKind.set(row.kind, figures);
    if (row.kind === 'payout_hold' && row.name === 'suspense' && row.direction === 'CR')
      holds.set(row.reference_id, (holds.get(row.reference_id) ?? new BigNumber(0)).plus(row.amount));
    // An operating-float withdrawal's hold debits suspense: what it held is the amount, whichever side.
    if (row.kind === 'withdrawal_hold' && row.name === 'suspense')
      withdrawalHolds.set(row.reference_id, (withdrawalHolds.get(row.reference_id) ?? new BigNumber(0)).plus(row.amount));
    if (['payout_settle', 'payout_release', 'withdrawal_settle', 'withdrawal_release'].includes(row.kind)) outcomes.add(row.reference_id);
  }
  const accounts = (await harness
    .ledgerDb('accounts')
    .where({ tenant_id: caller.tenantId, environment: caller.environment, currency_code: 'USD' })
    .select('name', 'balance')) as Array<{ name: string; balance: string }>;
  const liquidity = new Map<string, BigNumber>();
  for (const account of accounts) {
    const accountClass = accountClassOf(account.name);
    liquidity.set(accountClass, (liquidity.get(accountClass) ?? new BigNumber(0)).plus(account.balance));
  }
  const pendingOf = (held: Map<string, BigNumber>) => {
    const pending = [...held.entries()].filter(([caseId]) => !outcomes.has(caseId));
    const amount = pending.reduce((sum, [, each]) => sum.plus(each), new BigNumber(0));
    return { count: pending.length, amount: formatAmount(amount, 'USD') };
  };
  return {
    entryCount: new Set(rows.map((row) => row.entry_id)).size,
    byKind: [...byKind.entries()].map(([kind, figures]) => ({
      kind,
      entryCount: figures.entries.size,
      volume: formatAmount(figures.volume, 'USD'),
      feeRevenue: formatAmount(figures.feeRevenue, 'USD'),
      platformCommission: formatAmount(figures.platformCommission, 'USD'),
    })),
    liquidity,
    pendingPayouts: pendingOf(holds),
    pendingWithdrawals: pendingOf(withdrawalHolds),
  };
}

it('the read models equal what the journal and the account balances add up to', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 12 }), async (actions) => {
      const caller = await harness.newCaller(['USD']);
      for (const item of actions) await run(caller, item);
      const expected = await fromTheJournal(caller);
      const read = await waitFor(
        async () => {
          const response = await harness.request(caller, 'GET', '/v1/admin/analytics', { scopes: ['analytics:read'] });
          const parsed = tenantAnalyticsSchema.parse(response.body);
          const count = parsed.currencies.find((row) => row.currencyCode === 'USD')?.totals.entryCount ?? 0;
          return count === expected.entryCount ? parsed : undefined;
        },
        { what: `${expected.entryCount} entries in the analytics` },
      );
      const usd = read.currencies.find((row) => row.currencyCode === 'USD');
      if (expected.entryCount === 0) {
        expect(usd).toBeUndefined();
        return;
      }
      expect(usd?.byKind.map((row) => row.kind).sort()).toEqual(expected.byKind.map((row) => row.kind).sort());
      for (const row of expected.byKind) expect(usd?.byKind.find((item) => item.kind === row.kind)).toEqual(row);
      expect(usd?.pendingPayouts).toEqual(expected.pendingPayouts);
      expect(usd?.pendingWithdrawals).toEqual(expected.pendingWithdrawals);
      const liquidityByClass: Record<string, string | undefined> = {
        wallets: usd?.liquidity.wallets,
        operating_float: usd?.liquidity.operatingFloat,
        momo_float: usd?.liquidity.momoFloat,
        bank_float: usd?.liquidity.bankFloat,
        rail_clearing: usd?.liquidity.railClearing,
        suspense: usd?.liquidity.suspense,
        payout_clearing: usd?.liquidity.payoutClearing,
        fee_revenue: usd?.liquidity.feeRevenue,
        platform_commission: usd?.liquidity.platformCommission,
      };
      for (const [accountClass, balance] of expected.liquidity) {
        // The ledger keeps each balance in its account's normal direction, as the read model reports it.
        expect(`${accountClass} ${liquidityByClass[accountClass]}`).toBe(`${accountClass} ${formatAmount(balance, 'USD')}`);
      }
    }),
    { numRuns: 12 },
  );
});

it('counts each entry once however its events are split, repeated and redelivered', async () => {
  const entry = fc.record({
    kind: fc.constantFrom<JournalKind>('momo_deposit', 'transfer', 'payout_hold', 'payout_settle'),
    cents,
    feeCents: fc.integer({ min: 1, max: 99 }),
    caseNumber: fc.integer({ min: 0, max: 2 }),
  });
  await fc.assert(
    fc.asyncProperty(
      fc.array(entry, { minLength: 1, maxLength: 10 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
      async (drafts, picks) => {
        const once = `tn_once_${randomUUID().slice(0, 8)}`;
        const repeated = `tn_rep_${randomUUID().slice(0, 8)}`;
        const entriesOf = (tenantId: string): PostedEntry[] =>
          drafts.map((draft, index) => ({
            journalEntryId: `je_${tenantId}_${index}`,
            tenantId,
            environment: 'live',
            kind: draft.kind,
            reference: { type: draft.kind, id: `case_${draft.caseNumber}` },
            lines: [
              walletLine(0, 'DR', draft.cents + draft.feeCents),
              line('suspense', 'CR', draft.cents),
              line('revenue:fees', 'CR', draft.feeCents),
            ],
            createdAt: new Date().toISOString(),
          }));
        await harness.db.transaction((tx) => applyEntries(tx, entriesOf(once)));
        // Every entry at least once, in batches of whatever the picks say, with repeats inside and across batches.
        const all = entriesOf(repeated);
        const deliveries = [...all, ...picks.map((pick) => all[pick % all.length] as PostedEntry)];
        for (let start = 0; start < deliveries.length; start += 1 + ((picks[start % picks.length] ?? 0) % 5)) {
          const batch = deliveries.slice(start, start + 1 + ((picks[start % picks.length] ?? 0) % 5));
          await harness.db.transaction((tx) => applyEntries(tx, batch));
        }
        const range = { fromDay: '2000-01-01', toDay: '2100-01-01' };
        const strip = (rows: Awaited<ReturnType<typeof readAnalytics>>) => currenciesOf(rows);
        const expected = strip(await readAnalytics(harness.db, { environment: 'live', tenantId: once }, range));
        const actual = strip(await readAnalytics(harness.db, { environment: 'live', tenantId: repeated }, range));
        expect(actual).toEqual(expected);
        expect(expected[0]?.totals.entryCount).toBe(drafts.length);
      },
    ),
    { numRuns: 25 },
  );
});
