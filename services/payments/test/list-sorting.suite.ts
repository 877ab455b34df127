import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import type { ListSort } from '@wallet/contracts';
import { AppError, createDb, type Db, DEFAULT_LIST_EXAMINE_MAX, pageInOrder, useListExamineMax } from '@wallet/kit';
import { createTestDatabase, idsPageByPage, queryPlans } from '@wallet/kit/testing';
import { listDeposits } from '../src/features/deposits/deposits-store';
import { listCases } from '../src/features/payouts/payouts-store';
import { listTransfers } from '../src/features/transfers/transfers-store';

/**
 * The money lists sort by creation or by amount, either way (docs/decisions/list-sorting.md):
 * following the cursors gives every record the filters select exactly once, in that order, ties
 * in amount by creation, also when the filters are tested on a bounded number of records (3
 * here) and a page comes back short.
 */
const SORTS: ListSort[] = ['-createdAt', 'createdAt', '-amount', 'amount'];
const AMOUNTS = ['0.50', '1.00', '1.00', '9.99', '10.00', '250.00', '1000.01'];
const STATUSES = ['pending', 'completed', 'failed'] as const;
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('payments_list_sorting', { migratedFor: 'payments' }), { poolMax: 2 });
  for (const id of ['wl_A', 'wl_B', 'wl_C'])
    await db('wallets').insert({
      id,
      tenant_id: 'tn_WALLETS',
      environment: 'test',
      owner_type: 'user',
      owner_id: id,
      currency_code: 'USD',
    });
  useListExamineMax(3);
});
afterAll(async () => {
  useListExamineMax(DEFAULT_LIST_EXAMINE_MAX);
  await db?.destroy();
});

interface Seeded {
  id: string;
  seq: string;
  amount: string;
  status: string;
  from_wallet_id: string;
}

/** Ids in the order `sort` names, as the database holds them: by amount (exactly) or by seq, ties by seq. */
function expectedOrder(rows: Seeded[], sort: ListSort): string[] {
  const descending = sort.startsWith('-');
  const bySeq = (a: Seeded, b: Seeded) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1);
  const ascending = [...rows].sort((a, b) =>
    sort.endsWith('amount') ? new BigNumber(a.amount).comparedTo(b.amount) || bySeq(a, b) : bySeq(a, b),
  );
  return (descending ? ascending.reverse() : ascending).map((row) => row.id);
}

let tenants = 0;

it('transfers in every order, with and without filters, page by page', async () => {
  const transfer = fc.record({ amount: fc.constantFrom(...AMOUNTS), status: fc.constantFrom(...STATUSES), fromA: fc.boolean() });
  const query = fc.record({
    sort: fc.constantFrom(...SORTS),
    status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
    walletId: fc.option(fc.constant('wl_A'), { nil: undefined }),
    limit: fc.integer({ min: 1, max: 4 }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(transfer, { maxLength: 14 }), query, async (transfers, asked) => {
      const scope = { tenantId: `tn_SORTED${(tenants += 1)}`, environment: 'test' as const };
      const seeded: Seeded[] = transfers.length
        ? await db('transfers')
            .insert(
              transfers.map((each, index) => ({
                id: `tx_${scope.tenantId}_${index}`,
                tenant_id: scope.tenantId,
                environment: 'test',
                from_wallet_id: each.fromA ? 'wl_A' : 'wl_B',
                to_wallet_id: 'wl_C',
                currency_code: 'USD',
                amount: each.amount,
                fee: '0.00',
                commission: '0.00',
                platform_commission_bps: 0,
                status: each.status,
                ...(each.status === 'pending' ? {} : { finished_at: new Date() }),
                ...(each.status === 'failed' ? { failure_code: 'INSUFFICIENT_FUNDS' } : {}),
                ...(each.status === 'completed' ? { journal_entry_id: `je_${scope.tenantId}_${index}` } : {}),
              })),
            )
            .returning(['id', 'seq', 'amount', 'status', 'from_wallet_id'])
        : [];
      const selected = seeded.filter(
        (row) =>
          (asked.status === undefined || row.status === asked.status) && (asked.walletId === undefined || row.from_wallet_id === 'wl_A'),
      );
      const pages = await idsPageByPage(
        (after) => listTransfers(db, scope, { ...asked, after, limit: asked.limit }),
        asked.limit,
        asked.sort,
      );
      expect(pages.flat()).toEqual(expectedOrder(selected, asked.sort));
    }),
    { numRuns: 30 },
  );
});

it('reads each list by amount from its amount index, whatever the filters', async () => {
  const scope = { tenantId: 'tn_PLANS', environment: 'test' as const };
  const plans = await queryPlans(db, async () => {
    await listTransfers(db, scope, { sort: '-amount', walletId: 'wl_A', limit: 2 });
    await listDeposits(db, scope, { sort: 'amount', externalRef: 'ref', limit: 2 });
    await listCases(db, scope, { sort: '-amount', status: 'pending', limit: 2 });
  });
  expect(plans.join('\n')).toMatch(/transfers_scope_amount_seq/);
  expect(plans.join('\n')).toMatch(/deposits_scope_amount_seq/);
  expect(plans.join('\n')).toMatch(/payout_cases_scope_amount_seq/);
  expect(plans.join('\n')).not.toMatch(/Sort Key|Seq Scan/);
});

it('a cursor goes on only in the order that issued it', async () => {
  const scope = { tenantId: 'tn_CURSORS', environment: 'test' as const };
  await db('deposits').insert(
    ['5.00', '7.00', '6.00'].map((amount, index) => ({
      id: `dp_cursor${index}`,
      tenant_id: scope.tenantId,
      environment: 'test',
      wallet_id: 'wl_A',
      amount,
      currency_code: 'USD',
      source: 'momo',
      provider_code: 'mtn',
      external_ref: `cursor${index}`,
      status: 'pending',
    })),
  );
  const page = (sort: ListSort, cursor?: string) =>
    pageInOrder(
      { sort, cursor, limit: 1 },
      (after) => listDeposits(db, scope, { sort, after, limit: 1 }),
      (row) => row.id,
    );
  const first = await page('-amount');
  expect(first.data).toEqual(['dp_cursor1']);
  expect((await page('-amount', first.nextCursor ?? undefined)).data).toEqual(['dp_cursor2']);
  for (const other of ['amount', '-createdAt', 'createdAt'] as const) {
    await expect(page(other, first.nextCursor ?? undefined)).rejects.toThrow(AppError);
  }
  const newest = await page('-createdAt');
  await expect(page('-amount', newest.nextCursor ?? undefined)).rejects.toThrow(/another order/);
});
