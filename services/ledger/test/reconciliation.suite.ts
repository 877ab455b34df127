import { ledgerFullRunSchema, type LedgerFullRun, newId, reconciliationResultSchema, type ReconciliationResult } from '@wallet/contracts';
import { holdSessionLock, signInternalToken } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import {
  depositCommand,
  entrySeqOf,
  INTERNAL_SECRET,
  type LedgerHarness,
  newTenantId,
  startLedgerHarness,
  transferCommand,
} from './support';

/**
 * Checks 1 and 2 from checkpoints (the GET routes) and from zero (background full runs), over
 * real PostgreSQL and RabbitMQ. Corruptions are written straight into the ledger's tables.
 */
let ledger: LedgerHarness;

beforeAll(async () => {
  // No pause between a full run's batches here: the tests wait for it.
  ledger = await startLedgerHarness({ env: { LEDGER_RECONCILIATION_FULL_BATCH: '3' } });
});

afterAll(async () => {
  await ledger?.close();
});

async function reconcile(tenantId: string | null): Promise<ReconciliationResult> {
  const answer = tenantId
    ? await ledger.get('/v1/ledger/reconciliation', { tenantId, scopes: ['analytics:read'] })
    : await ledger.get('/v1/system/ledger/reconciliation', { tenantId: null });
  expect(answer.status).toBe(200);
  return reconciliationResultSchema.parse(answer.body);
}

/**
 * Runs until one reads nothing new: the checkpoints then stand past everything so far (they move
 * to what a run saw once every transaction running then, in any database of the cluster, has ended).
 */
async function settle(tenantId: string): Promise<void> {
  await waitFor(
    async () => {
      const result = await reconcile(tenantId);
      expect(result.status).toBe('ok');
      return result.coverage?.journal?.entries === 0 ? true : undefined;
    },
    { what: 'a run that reads nothing new', intervalMs: 100 },
  );
}

const statuses = (result: ReconciliationResult): string[] => result.checks.map((check) => `${check.name} ${check.status}`);

function systemCall(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
  const token = signInternalToken(INTERNAL_SECRET, {
    surface: 'system',
    tenantId: null,
    environment: null,
    keyId: null,
    scopes: [],
    actor: null,
  });
  return fetch(`http://127.0.0.1:${ledger.service.port}${path}`, {
    method,
    headers: { 'x-internal-token': token, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function fullRun(tenantId: string | null): Promise<LedgerFullRun> {
  const started = await systemCall('POST', '/internal/v1/reconciliation/full-runs', tenantId ? { tenantId, environment: 'test' } : {});
  expect(started.status).toBe(202);
  const { id } = ledgerFullRunSchema.parse(await started.json());
  return waitFor(
    async () => {
      const run = ledgerFullRunSchema.parse(await (await systemCall('GET', `/internal/v1/reconciliation/full-runs/${id}`)).json());
      return run.state === 'succeeded' || run.state === 'failed' ? run : undefined;
    },
    { what: `full run ${id}`, timeoutMs: 30_000 },
  );
}

async function post(command: ReturnType<typeof depositCommand>): Promise<string> {
  const result = await ledger.client.request(command);
  expect(result.status).toBe('posted');
  return result.journalEntryId as string;
}

async function walletAccount(tenantId: string, walletId: string): Promise<{ id: string; name: string }> {
  return ledger.db('accounts').where({ tenant_id: tenantId, environment: 'test', wallet_id: walletId }).first('id', 'name');
}

describe('incremental checks 1 and 2', () => {
  it('covers only the entries after the checkpoint, and says which', async () => {
    const tenantId = newTenantId();
    await post(depositCommand({ tenantId }, 'wl_cov_a', '50.00'));
    await post(transferCommand({ tenantId }, 'wl_cov_a', 'wl_cov_b', '10.00', { fee: '0.50' }));
    const first = await reconcile(tenantId);
    expect(first.status).toBe('ok');
    expect(first.coverage).toMatchObject({ mode: 'incremental', journal: { afterSeq: '0', entries: 2, lines: 6 } });

    await settle(tenantId);

    await post(transferCommand({ tenantId }, 'wl_cov_b', 'wl_cov_a', '1.00'));
    const third = await reconcile(tenantId);
    expect(third.status).toBe('ok');
    expect(third.coverage?.journal).toMatchObject({ entries: 1, lines: 2, accounts: 2 });
    expect(BigInt(third.coverage?.journal?.afterSeq ?? '0')).toBeGreaterThanOrEqual(BigInt(first.coverage?.journal?.throughSeq ?? 'x'));
  });

  it('finds a corrupted recent balance, of an account with new lines and of one without', async () => {
    const tenantId = newTenantId();
    await post(depositCommand({ tenantId }, 'wl_quiet', '30.00'));
    await settle(tenantId);
    const quiet = await walletAccount(tenantId, 'wl_quiet');
    // wl_quiet has no line after its checkpoint; wl_busy's lines are all new.
    await post(depositCommand({ tenantId }, 'wl_busy', '20.00'));
    const busy = await walletAccount(tenantId, 'wl_busy');
    await ledger
      .db('accounts')
      .whereIn('id', [quiet.id, busy.id])
      .update({ balance: ledger.db.raw('balance + 1') });

    const result = await reconcile(tenantId);
    expect(statuses(result)).toEqual(['account_balances_match_lines mismatch', 'entries_balance ok']);
    expect(result.checks[0]?.mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ accountId: quiet.id, materializedBalance: '31.00', sumOfLines: '30.00' }),
        expect.objectContaining({ accountId: busy.id, materializedBalance: '21.00', sumOfLines: '20.00' }),
      ]),
    );
    expect(result.checks[0]?.mismatches).toHaveLength(2);
    // Still reported by the next run, and on the operator's surface: a checkpoint never absorbs a wrong balance.
    expect((await reconcile(tenantId)).checks[0]?.mismatches).toHaveLength(2);
    expect(JSON.stringify(await reconcile(null))).toContain(quiet.id);

    await ledger
      .db('accounts')
      .whereIn('id', [quiet.id, busy.id])
      .update({ balance: ledger.db.raw('balance - 1') });
    expect((await reconcile(tenantId)).status).toBe('ok');
  });

  it('finds a recent entry edited in place, and keeps finding it until it is put back', async () => {
    const tenantId = newTenantId();
    await post(depositCommand({ tenantId }, 'wl_edit', '40.00'));
    await settle(tenantId);
    const entryId = await post(transferCommand({ tenantId }, 'wl_edit', 'wl_edit_to', '15.00'));
    await ledger
      .db('journal_lines')
      .where({ entry_seq: await entrySeqOf(ledger.db, entryId), direction: 'DR' })
      .update({ amount: '15.01' });

    for (let round = 0; round < 2; round += 1) {
      const result = await reconcile(tenantId);
      expect(statuses(result)).toEqual(['account_balances_match_lines mismatch', 'entries_balance mismatch']);
      expect(result.checks[1]?.mismatches).toEqual(
        expect.arrayContaining([expect.objectContaining({ journalEntryId: entryId, debits: '15.01', credits: '15.00' })]),
      );
    }
    await ledger
      .db('journal_lines')
      .where({ entry_seq: await entrySeqOf(ledger.db, entryId), direction: 'DR' })
      .update({ amount: '15.00' });
    expect((await reconcile(tenantId)).status).toBe('ok');
  });
});

describe('full runs', () => {
  it('find an old line edited in place that the incremental run has already passed', async () => {
    const tenantId = newTenantId();
    const old = await post(depositCommand({ tenantId }, 'wl_old', '70.00'));
    await post(transferCommand({ tenantId }, 'wl_old', 'wl_old_to', '5.00', { fee: '0.25' }));
    await settle(tenantId);

    // Behind every checkpoint now: only a run from zero reads it again.
    await ledger
      .db('journal_lines')
      .where({ entry_seq: await entrySeqOf(ledger.db, old), direction: 'CR' })
      .update({ amount: '70.70' });
    await post(depositCommand({ tenantId }, 'wl_new', '1.00'));
    const incremental = await reconcile(tenantId);
    expect(incremental.status).toBe('ok');
    expect(incremental.coverage?.journal?.entries).toBe(1);

    const run = await fullRun(tenantId);
    expect(run.state).toBe('succeeded');
    expect(run.progress).toMatchObject({ phase: 'done', entries: 3 });
    const result = reconciliationResultSchema.parse(run.result);
    expect(result.coverage).toMatchObject({ mode: 'full', journal: { afterSeq: '0', entries: 3, lines: 8 } });
    expect(statuses(result)).toEqual(['account_balances_match_lines mismatch', 'entries_balance mismatch']);
    const account = await walletAccount(tenantId, 'wl_old');
    expect(result.checks[0]?.mismatches).toEqual([
      expect.objectContaining({ accountId: account.id, materializedBalance: '64.75', sumOfLines: '65.45' }),
    ]);
    expect(result.checks[1]?.mismatches).toEqual(
      expect.arrayContaining([expect.objectContaining({ journalEntryId: old, debits: '70.00', credits: '70.70' })]),
    );

    // The full run left the checkpoints at the true sums: the incremental run now sees it too.
    expect(statuses(await reconcile(tenantId))).toEqual(['account_balances_match_lines mismatch', 'entries_balance mismatch']);
    await ledger
      .db('journal_lines')
      .where({ entry_seq: await entrySeqOf(ledger.db, old), direction: 'CR' })
      .update({ amount: '70.00' });
    expect((await fullRun(tenantId)).result?.status).toBe('ok');
    expect((await reconcile(tenantId)).status).toBe('ok');
  });

  it("moves a clean scope's checkpoint to what it verified, so the next incremental run reads only what came after; not a scope with a finding", async () => {
    // A history no incremental run has read yet (as an import leaves it): the full run verifies it.
    const tenantId = newTenantId();
    for (const amount of ['10.00', '20.00', '30.00']) await post(depositCommand({ tenantId }, 'wl_imported', amount));
    expect((await fullRun(tenantId)).result?.status).toBe('ok');
    const after = await reconcile(tenantId);
    expect(after.status).toBe('ok');
    expect(after.coverage?.journal?.entries).toBe(0);
    await post(depositCommand({ tenantId }, 'wl_imported', '5.00'));
    const next = await reconcile(tenantId);
    expect(next.status).toBe('ok');
    expect(next.coverage?.journal?.entries).toBe(1);
    // A balance corrupted after the move is still the incremental run's to find.
    await ledger
      .db('accounts')
      .where({ id: (await walletAccount(tenantId, 'wl_imported')).id })
      .increment('balance', 1);
    await post(depositCommand({ tenantId }, 'wl_imported', '1.00'));
    expect(statuses(await reconcile(tenantId))).toContain('account_balances_match_lines mismatch');
    await ledger
      .db('accounts')
      .where({ id: (await walletAccount(tenantId, 'wl_imported')).id })
      .decrement('balance', 1);

    // A scope with something wrong keeps its checkpoint where it was: the incremental run reads its entries again.
    const held = newTenantId();
    const first = await post(depositCommand({ tenantId: held }, 'wl_held', '10.00'));
    await post(depositCommand({ tenantId: held }, 'wl_held', '20.00'));
    const line = { entry_seq: await entrySeqOf(ledger.db, first), direction: 'CR' };
    await ledger.db('journal_lines').where(line).update({ amount: '10.01' });
    try {
      expect(reconciliationResultSchema.parse((await fullRun(held)).result).status).toBe('mismatch');
      expect((await reconcile(held)).coverage?.journal?.entries).toBe(2);
    } finally {
      await ledger.db('journal_lines').where(line).update({ amount: '10.00' });
    }
  });

  it("reads a tenant's lines by range where its entries are dense and entry by entry where they are sparse, finding an edited line either way", async () => {
    // Dense: three entries of four in a range (one range read, the other tenant's lines left out). Sparse: two entries with a dozen of another tenant's between (a lookup each).
    const dense = newTenantId();
    const other = newTenantId();
    const denseEntries = [await post(depositCommand({ tenantId: dense }, 'wl_dense', '10.00'))];
    await post(depositCommand({ tenantId: other }, 'wl_other', '7.00'));
    denseEntries.push(
      await post(depositCommand({ tenantId: dense }, 'wl_dense', '20.00')),
      await post(depositCommand({ tenantId: dense }, 'wl_dense', '30.00')),
    );
    const sparse = newTenantId();
    const sparseFirst = await post(depositCommand({ tenantId: sparse }, 'wl_sparse', '40.00'));
    for (let index = 0; index < 12; index += 1) await post(depositCommand({ tenantId: other }, 'wl_other', '1.00'));
    await post(depositCommand({ tenantId: sparse }, 'wl_sparse', '50.00'));

    for (const [tenantId, entryId, amount] of [
      [dense, denseEntries[1] as string, '20.00'],
      [sparse, sparseFirst, '40.00'],
    ] as const) {
      const line = { entry_seq: await entrySeqOf(ledger.db, entryId), direction: 'CR' };
      await ledger.db('journal_lines').where(line).update({ amount: '99.99' });
      const result = reconciliationResultSchema.parse((await fullRun(tenantId)).result);
      expect(statuses(result)).toEqual(['account_balances_match_lines mismatch', 'entries_balance mismatch']);
      expect(result.checks[1]?.mismatches).toEqual(
        expect.arrayContaining([expect.objectContaining({ journalEntryId: entryId, credits: '99.99' })]),
      );
      // Only the tenant's own lines: the other tenant's entries in the range are not read as its.
      expect(result.coverage).toMatchObject({ journal: { entries: tenantId === dense ? 3 : 2 } });
      await ledger.db('journal_lines').where(line).update({ amount });
      expect(reconciliationResultSchema.parse((await fullRun(tenantId)).result).status).toBe('ok');
    }
    expect(reconciliationResultSchema.parse((await fullRun(other)).result).status).toBe('ok');
  });

  it('finds a line whose account is missing', async () => {
    const tenantId = newTenantId();
    const entryId = await post(depositCommand({ tenantId }, 'wl_orphan_full', '2.00'));
    const entrySeq = await entrySeqOf(ledger.db, entryId);
    await ledger
      .db('journal_lines')
      .insert({ entry_seq: entrySeq, line_no: 99, account_num: '999999998', direction: 'DR', amount: '0.01', balance_after: '0' });
    try {
      const run = await fullRun(tenantId);
      expect(run.result?.checks[1]?.mismatches).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ journalEntryId: entryId, accountNum: '999999998', problem: 'line without account' }),
        ]),
      );
    } finally {
      await ledger.db('journal_lines').where({ entry_seq: entrySeq, line_no: 99 }).delete();
    }
  });

  it('across every tenant, finds a line whose entry is missing', async () => {
    const tenantId = newTenantId();
    // A seq no entry took, below the next entry's: inside the range the run reads.
    const gap = (await ledger.db.raw("SELECT nextval('journal_entries_seq_seq')::text AS seq")).rows[0].seq as string;
    await post(depositCommand({ tenantId }, 'wl_no_entry', '1.00'));
    await ledger
      .db('journal_lines')
      .insert({ entry_seq: gap, line_no: 1, account_num: '1', direction: 'DR', amount: '0.01', balance_after: '0' });
    try {
      const run = await fullRun(null);
      expect(run.result?.checks[1]?.mismatches).toEqual(
        expect.arrayContaining([{ entrySeq: gap, lineNo: 1, accountNum: '1', problem: 'line without entry' }]),
      );
    } finally {
      await ledger.db('journal_lines').where({ entry_seq: gap }).delete();
    }
  });

  it('across every tenant, shows its progress and finds nothing on a clean ledger', async () => {
    const tenantId = newTenantId();
    await post(depositCommand({ tenantId }, 'wl_all', '9.00'));
    const run = await fullRun(null);
    expect(run.state).toBe('succeeded');
    expect(run.progress?.lines).toBeGreaterThan(0);
    expect(run.progress?.linesEstimate).not.toBeUndefined();
    expect(run.result).toMatchObject({ status: 'ok', coverage: { mode: 'full' } });
    expect((await systemCall('GET', '/internal/v1/reconciliation/full-runs/rcr_NOPE')).status).toBe(404);
  });

  it('records failed a run whose instance stopped (its lock free), never one whose instance still holds it', async () => {
    const id = newId('reconciliationRun');
    const owner = `ledger-${id.slice(4)}`;
    await ledger.db('reconciliation_full_runs').insert({ id, tenant_id: null, environment: null, state: 'running', owner });
    const asked = async (): Promise<LedgerFullRun> =>
      ledgerFullRunSchema.parse(await (await systemCall('GET', `/internal/v1/reconciliation/full-runs/${id}`)).json());
    // Held, as by the instance running it.
    const held = await holdSessionLock(ledger.db, `ledger.reconciliation.full-runs:${owner}`);
    expect(held).not.toBeNull();
    expect((await asked()).state).toBe('running');
    // Its instance gone: the next question finds the lock free.
    await held?.release();
    expect(await asked()).toMatchObject({ state: 'failed', error: expect.stringContaining('stopped before finishing it') });
  });
});
