import { waitFor } from '@wallet/kit/testing';
import { type AccountRef, lockAccounts, openAccounts } from '../src/features/posting/posting-store';
import { type LedgerHarness, newTenantId, startLedgerHarness } from './support';

let harness: LedgerHarness;

beforeAll(async () => {
  harness = await startLedgerHarness();
});

afterAll(async () => {
  await harness?.close();
});

function walletRef(tenantId: string, index: number): AccountRef {
  return { tenantId, environment: 'test', currencyCode: 'USD', name: `wallet:owner-${index}`, walletId: `wal_${tenantId}_${index}` };
}

/** Resolves once a backend of the ledger's database waits for a row lock. */
async function someoneWaitsForALock(): Promise<void> {
  await waitFor(
    async () => {
      const waiting = await harness.db.raw<{ rows: Array<{ count: string }> }>(
        `SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return Number(waiting.rows[0]?.count) > 0 ? true : undefined;
    },
    { intervalMs: 10, what: 'the batch to wait for its locks' },
  );
}

it('locks every account a batch names in its one statement, also those another batch updated while it waited', async () => {
  const tenantId = newTenantId();
  const refs: AccountRef[] = [
    ...Array.from({ length: 600 }, (_, index) => walletRef(tenantId, index)),
    { tenantId, environment: 'test', currencyCode: 'USD', name: 'revenue:fees', walletId: null },
  ];
  await harness.db.transaction((tx) => openAccounts(tx, refs));
  await harness.db.raw('ANALYZE accounts');

  // The batch before this one: it updated a third of the accounts and the fee account, and has not committed yet.
  const before = await harness.db.transaction();
  const updated = await before.raw<{ rowCount: number }>(
    `UPDATE accounts SET balance = balance WHERE tenant_id = ? AND (wallet_id = ANY(?) OR wallet_id IS NULL)`,
    [tenantId, refs.filter((_, index) => index % 3 === 0).map((ref) => ref.walletId ?? '')],
  );
  expect(updated.rowCount).toBe(201);

  const locking = harness.db.transaction((tx) => lockAccounts(tx, refs));
  await someoneWaitsForALock();
  await before.commit();
  const locked = await locking;

  expect(locked.map((row) => row.name).sort()).toEqual(refs.map((ref) => ref.name).sort());
  // In the database's own order of ids, the one every batch locks in.
  const ordered = await harness.db.raw<{ rows: Array<{ id: string }> }>('SELECT id FROM accounts WHERE id = ANY(?) ORDER BY id', [
    locked.map((row) => row.id),
  ]);
  expect(locked.map((row) => row.id)).toEqual(ordered.rows.map((row) => row.id));
});
