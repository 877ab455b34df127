import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import { createDb, type Db } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { transferSource } from '../src/features/transfers/transfer-records';
import { transferDigestsAfter } from '../src/features/transfers/transfer-digests';
import { type DigestedRecords, digestOfRecords } from '@wallet/money-commands';

/*
 * A full run digests transfers in PostgreSQL (transfer-digests.ts); check 3 one record at a time
 * builds each transfer's posting command in JavaScript. The two must give the same digest, or
 * every full run compares transfers one by one.
 */

const TENANT = 'tn_DIGESTS';
const scope = { tenantId: TENANT, environment: 'test' as const };
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('payments_transfer_digests', { migratedFor: 'payments' }), { poolMax: 2 });
  // Owners' ids as they come: a member, a user with characters beyond ASCII.
  const wallets = [
    { id: 'wl_1', owner_id: 'user_1' },
    { id: 'wl_2', owner_id: 'usr-ünï-2' },
    { id: 'wl_3', owner_id: 'merchant:3' },
  ];
  for (const wallet of wallets)
    await db('wallets').insert({ ...wallet, tenant_id: TENANT, environment: 'test', owner_type: 'user', currency_code: 'KES' });
});
afterAll(async () => {
  await db?.destroy();
});

const amount = fc.oneof(
  fc.constant('0'),
  fc
    .bigInt({ min: 1n, max: 10n ** 12n })
    .map((minor) => (Number(minor % 3n) === 0 ? `${minor}` : `${minor / 100n}.${(minor % 100n).toString().padStart(2, '0')}`)),
);
const transfer = fc
  .record({
    from: fc.constantFrom('wl_1', 'wl_2', 'wl_3'),
    to: fc.constantFrom('wl_1', 'wl_2', 'wl_3'),
    amount: amount.filter((each) => each !== '0'),
    fee: amount,
    commission: amount,
    status: fc.constantFrom('pending', 'completed', 'completed', 'completed', 'failed'),
  })
  .filter((each) => each.from !== each.to && new BigNumber(each.commission).lte(each.fee));

/** What a full run makes of a page in code: `after`'s records, their postings digested (the kit's digestOfRecords). */
async function digestedInCode(afterSeq: string, limit: number): Promise<DigestedRecords> {
  const records = await transferSource.after?.(db, scope, afterSeq, limit);
  if (!records) throw new Error('transfers are read by seq');
  return digestOfRecords(records);
}

it('digests a page of transfers in PostgreSQL exactly as their posting commands are digested in JavaScript', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(transfer, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 15 }), async (transfers, limit) => {
      run += 1;
      await db('transfers').where({ tenant_id: TENANT }).delete();
      await db('transfers').insert(
        transfers.map((each, index) => ({
          id: `tx_${run}_${index}`,
          tenant_id: TENANT,
          environment: 'test',
          from_wallet_id: each.from,
          to_wallet_id: each.to,
          currency_code: 'KES',
          amount: each.amount,
          fee: each.fee,
          commission: each.commission,
          platform_commission_bps: 0,
          status: each.status,
          journal_entry_id: each.status === 'completed' ? `je_${run}_${index}` : null,
          failure_code: each.status === 'failed' ? 'INSUFFICIENT_FUNDS' : null,
          finished_at: each.status === 'pending' ? null : new Date(),
        })),
      );
      for (let afterSeq = '0'; ;) {
        const inPostgres = await transferDigestsAfter(db, scope, afterSeq, limit);
        expect(inPostgres).toEqual(await digestedInCode(afterSeq, limit));
        if (inPostgres.lastSeq === null || inPostgres.records < limit) break;
        afterSeq = inPostgres.lastSeq;
      }
    }),
    { numRuns: 60 },
  );
});
