import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import type { LedgerCommand, LedgerResultV1 } from '@wallet/contracts';
import {
  commandId,
  depositCommand,
  ledgerInvariantViolations,
  type LedgerHarness,
  newTenantId,
  startLedgerHarness,
  systemLine,
  transferCommand,
  walletBalance,
  walletLine,
} from './support';

const WALLETS = ['wl_p0', 'wl_p1', 'wl_p2', 'wl_p3'];

type Action =
  | { kind: 'deposit'; wallet: number; cents: number }
  | { kind: 'transfer'; from: number; to: number; cents: number; feeCents: number }
  | { kind: 'unbalanced'; wallet: number; cents: number }
  | { kind: 'duplicate'; of: number }
  | { kind: 'reuse'; of: number }
  | { kind: 'redeliver'; of: number }
  | { kind: 'status'; wallet: number; frozen: boolean };

const wallet = fc.integer({ min: 0, max: WALLETS.length - 1 });
const cents = fc.integer({ min: 1, max: 50_000 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('deposit' as const), wallet, cents }) },
  {
    weight: 5,
    arbitrary: fc
      .record({ kind: fc.constant('transfer' as const), from: wallet, to: wallet, cents, feeCents: fc.integer({ min: 0, max: 300 }) })
      .filter((a) => a.from !== a.to),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unbalanced' as const), wallet, cents }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('duplicate' as const), of: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reuse' as const), of: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('redeliver' as const), of: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('status' as const), wallet, frozen: fc.boolean() }) },
);

const money = (value: number): string => new BigNumber(value).shiftedBy(-2).toFixed(2);

interface Expected {
  status: LedgerResultV1['status'];
  code: string | null;
  /** Index of the command whose result this one repeats. */
  repeats?: number;
}

/** The model: what a correct ledger answers, deciding commands one by one in queue order. */
class Model {
  readonly balances = WALLETS.map(() => new BigNumber(0));
  readonly frozen = WALLETS.map(() => false);
  readonly firstResultOf = new Map<string, number>();

  decide(command: LedgerCommand, action: Action, index: number, sent: Array<{ command: LedgerCommand }>): Expected {
    if (action.kind === 'duplicate' || action.kind === 'redeliver') {
      const original = this.firstResultOf.get(command.commandId) as number;
      return { status: 'posted', code: null, repeats: original };
    }
    if (action.kind === 'reuse') return { status: 'rejected', code: 'COMMAND_ID_REUSED' };
    this.firstResultOf.set(command.commandId, index);
    switch (action.kind) {
      case 'deposit':
        this.balances[action.wallet] = (this.balances[action.wallet] as BigNumber).plus(money(action.cents));
        return { status: 'posted', code: null };
      case 'unbalanced':
        return { status: 'rejected', code: 'UNBALANCED_ENTRY' };
      case 'status':
        this.frozen[action.wallet] = action.frozen;
        return { status: 'applied', code: null };
      case 'transfer': {
        if (this.frozen[action.from]) return { status: 'rejected', code: 'WALLET_FROZEN' };
        const total = new BigNumber(money(action.cents)).plus(money(action.feeCents));
        if ((this.balances[action.from] as BigNumber).lt(total)) return { status: 'rejected', code: 'INSUFFICIENT_FUNDS' };
        this.balances[action.from] = (this.balances[action.from] as BigNumber).minus(total);
        this.balances[action.to] = (this.balances[action.to] as BigNumber).plus(money(action.cents));
        return { status: 'posted', code: null };
      }
    }
    void sent;
    throw new Error('unreachable');
  }
}

describe('ledger properties under random postings, rejections, duplicates and redeliveries', () => {
  let ledger: LedgerHarness;
  beforeAll(async () => {
    ledger = await startLedgerHarness();
  });
  afterAll(async () => {
    await ledger.close();
  });

  it('balances every entry, matches every balance to its lines, never overdraws and applies each commandId at most once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 40 }), async (actions) => {
        const tenantId = newTenantId();
        const scope = { tenantId };
        const model = new Model();
        const firstSent: LedgerCommand[] = [];
        const plan: Array<{ command: LedgerCommand; action: Action; awaitReply: boolean }> = [];
        for (const step of actions) {
          let command: LedgerCommand;
          if (step.kind === 'duplicate' || step.kind === 'reuse' || step.kind === 'redeliver') {
            const original = firstSent[step.of % Math.max(firstSent.length, 1)];
            if (!original || original.type !== 'ledger.post.v1') continue;
            // Only repeat commands the model knows posted, so the expected answer is exact.
            command = step.kind === 'reuse' ? { ...original, lines: depositCommand(scope, 'wl_x', '0.01').lines } : original;
          } else if (step.kind === 'deposit') {
            command = depositCommand(scope, WALLETS[step.wallet] as string, money(step.cents));
          } else if (step.kind === 'transfer') {
            command = transferCommand(scope, WALLETS[step.from] as string, WALLETS[step.to] as string, money(step.cents), {
              fee: money(step.feeCents),
            });
          } else if (step.kind === 'unbalanced') {
            command = {
              ...depositCommand(scope, WALLETS[step.wallet] as string, money(step.cents)),
              lines: [
                systemLine('momo-float:mtn', 'DR', money(step.cents)),
                walletLine(WALLETS[step.wallet] as string, 'CR', money(step.cents + 1)),
              ],
            };
          } else {
            const walletId = WALLETS[step.wallet] as string;
            command = {
              type: 'ledger.wallet-status.v1',
              commandId: commandId('status'),
              tenantId,
              environment: 'test',
              walletId,
              accountName: `wallet:owner-${walletId}`,
              currencyCode: 'USD',
              status: step.frozen ? 'frozen' : 'active',
            };
          }
          if (step.kind !== 'duplicate' && step.kind !== 'reuse' && step.kind !== 'redeliver') firstSent.push(command);
          plan.push({ command, action: step, awaitReply: step.kind !== 'redeliver' });
        }
        const expectations = plan.map((item, index) => model.decide(item.command, item.action, index, plan));
        // Repeats of a command that was itself rejected repeat that rejection.
        const replies = await Promise.all(
          plan.map((item) =>
            item.awaitReply
              ? ledger.client.request(item.command, { timeoutMs: 20_000 })
              : ledger.client.send(item.command).then(() => null),
          ),
        );
        // A last command behind everything else: once it is answered, every redelivery before it was consumed.
        await ledger.client.request(depositCommand(scope, 'wl_sentinel', '0.01'));

        replies.forEach((reply, index) => {
          if (!reply) return;
          const expected = expectations[index] as Expected;
          if (expected.repeats !== undefined) {
            const original = replies[expected.repeats] as LedgerResultV1;
            expect(reply).toMatchObject({ status: original.status, journalEntryId: original.journalEntryId, duplicate: true });
          } else {
            expect({ index, status: reply.status, code: reply.error?.code ?? null }).toEqual({
              index,
              status: expected.status,
              code: expected.code,
            });
          }
        });
        for (const [index, walletId] of WALLETS.entries()) {
          const balance = (await walletBalance(ledger.db, tenantId, walletId)) ?? '0';
          expect({ walletId, balance }).toEqual({ walletId, balance: (model.balances[index] as BigNumber).toFixed() });
        }
        const postedByModel = expectations.filter(
          (expected, index) =>
            expected.repeats === undefined && expected.status === 'posted' && plan[index]?.command.type === 'ledger.post.v1',
        ).length;
        const entries = await ledger.db('journal_entries').where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count');
        expect(Number(entries[0]?.count)).toBe(postedByModel + 1);
        expect(await ledgerInvariantViolations(ledger.db)).toEqual([]);
      }),
      { numRuns: 30, endOnFailure: true },
    );
  });
});
