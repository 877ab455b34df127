import type { ReconciliationResult } from '@wallet/contracts';
import { createLogger, createMetrics, withSessionLock } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import { FOLLOWER_LOCK, JournalFollower } from '../src/features/reconciliation/journal-follower';
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
 * The journal follower checks every scope's new entries in the background, so that a reconciliation asked for reads only
 * what came since its last round; a mismatch it meets stays where the next check asked for finds it.
 */
let ledger: LedgerHarness;

beforeAll(async () => {
  ledger = await startLedgerHarness();
});

afterAll(async () => {
  await ledger?.close();
});

const follower = (): JournalFollower =>
  new JournalFollower({
    dbs: [ledger.db],
    logger: createLogger({ service: 'ledger-test', level: 'silent' }),
    metrics: createMetrics('ledger-follower-test'),
    entriesMax: 1_000,
  });

const reconcile = (tenantId: string): Promise<ReconciliationResult> => reconcileTenant(ledger, tenantId);
const post = (command: ReturnType<typeof depositCommand>): Promise<void> => postExpectingPosted(ledger, command);

async function postHistory(tenantId: string, transfers: number): Promise<void> {
  await post(depositCommand({ tenantId }, 'wl_fl_a', '100.00'));
  for (let transfer = 0; transfer < transfers; transfer += 1) await post(transferCommand({ tenantId }, 'wl_fl_a', 'wl_fl_b', '1.00'));
}

/** The scope's checkpoint is at its latest entry: everything it wrote is verified. */
async function verifiedThroughLatest(tenantId: string): Promise<true | undefined> {
  const checkpoint = await ledger
    .db('reconciliation_scope_checkpoints')
    .where({ tenant_id: tenantId, environment: 'test' })
    .first('verified_seq');
  const latest = await ledger.db('journal_entries').where({ tenant_id: tenantId, environment: 'test' }).max('seq as seq').first();
  return checkpoint !== undefined && String(checkpoint.verified_seq) === String(latest?.seq) ? true : undefined;
}

async function followUntilVerified(rounds: JournalFollower, tenantId: string): Promise<void> {
  // A checkpoint waiting on a transaction that was running during a round moves at a later round.
  await waitFor(async () => ((await rounds.round()).skipped === false ? verifiedThroughLatest(tenantId) : undefined), {
    what: 'the follower to have verified the scope',
    intervalMs: 100,
  });
}

it('checks the scopes written since its last round, so that a check asked for then reads nothing', async () => {
  const tenantId = newTenantId();
  await postHistory(tenantId, 6);
  const rounds = follower();
  // A first round finds the scopes never checked; later rounds the scopes written since.
  await followUntilVerified(rounds, tenantId);
  await post(transferCommand({ tenantId }, 'wl_fl_a', 'wl_fl_b', '1.00'));
  await followUntilVerified(rounds, tenantId);
  expect(await reconcile(tenantId)).toMatchObject({ status: 'ok', coverage: { journal: { entries: 0 } } });
});

it('leaves a mismatch for the check asked for to report, round after round', async () => {
  const tenantId = newTenantId();
  await postHistory(tenantId, 2);
  const rounds = follower();
  await rounds.round();
  await ledger.db('accounts').where({ tenant_id: tenantId, environment: 'test', wallet_id: 'wl_fl_b' }).update({ balance: '2.01' });
  await post(transferCommand({ tenantId }, 'wl_fl_a', 'wl_fl_b', '1.00'));
  const found = await rounds.round();
  expect(found).toMatchObject({ skipped: false });
  expect(found.skipped === false && found.mismatches).toBeGreaterThan(0);
  const asked = await reconcile(tenantId);
  expect(asked.checks.find((check) => check.name === 'account_balances_match_lines')?.mismatches).toEqual([
    expect.objectContaining({ materializedBalance: '3.01', sumOfLines: '3.00' }),
  ]);
  expect((await rounds.round()).skipped === false && (await reconcile(tenantId)).status).toBe('mismatch');
});

it('runs one round at a time across instances: a round meeting another holder of its lock skips', async () => {
  const rounds = follower();
  const held = await withSessionLock(ledger.db, FOLLOWER_LOCK, () => rounds.round());
  expect(held).toEqual({ skipped: true });
  expect(await rounds.round()).toMatchObject({ skipped: false });
});
