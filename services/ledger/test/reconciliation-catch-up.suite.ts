import type { ReconciliationResult } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import {
  depositCommand,
  type LedgerHarness,
  newTenantId,
  postExpectingPosted,
  reconcileTenant,
  startLedgerHarness,
  transferCommand,
} from './support';

/**
 * A reconciliation asked now reads at most LEDGER_RECONCILIATION_INCREMENTAL_MAX_ENTRIES new
 * entries of a scope: after a long pause (or a first run over a long history) it catches up over
 * several runs, each bounded, instead of one statement over everything that outlasts its caller.
 */
const ENTRIES_MAX = 4;
let ledger: LedgerHarness;

beforeAll(async () => {
  ledger = await startLedgerHarness({ env: { LEDGER_RECONCILIATION_INCREMENTAL_MAX_ENTRIES: String(ENTRIES_MAX) } });
});

afterAll(async () => {
  await ledger?.close();
});

const reconcile = (tenantId: string): Promise<ReconciliationResult> => reconcileTenant(ledger, tenantId);
const post = (command: ReturnType<typeof depositCommand>): Promise<void> => postExpectingPosted(ledger, command);

it('reads at most the configured number of new entries per run, and an account moved only after them is no mismatch', async () => {
  const tenantId = newTenantId();
  await post(depositCommand({ tenantId }, 'wl_cu_a', '100.00'));
  for (let transfer = 0; transfer < 5; transfer += 1) await post(transferCommand({ tenantId }, 'wl_cu_a', 'wl_cu_b', '1.00'));
  // wl_cu_c moves only in the last entries, beyond the first run's reach: its balance is not its (missing) checkpoint's.
  for (let transfer = 0; transfer < 2; transfer += 1) await post(transferCommand({ tenantId }, 'wl_cu_a', 'wl_cu_c', '2.00'));

  const first = await reconcile(tenantId);
  expect({ status: first.status, entries: first.coverage?.journal?.entries }).toEqual({ status: 'ok', entries: ENTRIES_MAX });

  let read = first.coverage?.journal?.entries ?? 0;
  await waitFor(
    async () => {
      const next = await reconcile(tenantId);
      expect(next.status).toBe('ok');
      expect(next.coverage?.journal?.entries).toBeLessThanOrEqual(ENTRIES_MAX);
      read += next.coverage?.journal?.entries ?? 0;
      return next.coverage?.journal?.entries === 0 ? true : undefined;
    },
    { what: 'runs that have caught up', intervalMs: 100 },
  );
  // Eight entries in all (a checkpoint that waited on a transaction elsewhere re-reads a few).
  expect(read).toBeGreaterThanOrEqual(8);

  // Once caught up, a corrupted balance is found by the next run.
  await ledger.db('accounts').where({ tenant_id: tenantId, environment: 'test', wallet_id: 'wl_cu_c' }).update({ balance: '4.01' });
  const corrupted = await reconcile(tenantId);
  expect(corrupted.checks.find((check) => check.name === 'account_balances_match_lines')?.mismatches).toEqual([
    expect.objectContaining({ materializedBalance: '4.01', sumOfLines: '4.00' }),
  ]);
});
