import { depositCommand, ledgerInvariantViolations, type LedgerHarness, newTenantId, startLedgerHarness, walletBalance } from './support';

/**
 * A batch whose transaction fails transiently (the database restarting, a serialization failure)
 * is retried; the batch behind it, already in flight, must not decide first. Otherwise which of
 * two commands wins (two spends of the same funds, or two commands under one commandId) would
 * depend on an outage instead of on queue order.
 */
describe('decision order across a transient failure', () => {
  let ledger: LedgerHarness;
  beforeAll(async () => {
    // One command per batch, two batches in flight: the second is planned while the first runs.
    ledger = await startLedgerHarness({ env: { LEDGER_BATCH_SIZE_MAX: '1', LEDGER_PIPELINE_DEPTH: '2' } });
  });
  afterAll(async () => {
    await ledger.db.raw('DROP TRIGGER IF EXISTS fail_first_entry ON journal_entries');
    await ledger.close();
  });

  it('decides the batch behind a failed one only after the failed one is retried', async () => {
    const tenantId = newTenantId();
    const reference = 'dep_fails_once';
    // The first insert of this entry waits long enough for the next batch to be planned, then
    // fails as a serialization failure would; the sequence (not rolled back) makes it once only.
    await ledger.db.raw(`
      CREATE SEQUENCE IF NOT EXISTS fail_first_entry_calls;
      CREATE OR REPLACE FUNCTION fail_first_entry() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.reference_id = '${reference}' AND nextval('fail_first_entry_calls') = 1 THEN
          PERFORM pg_sleep(0.3);
          RAISE EXCEPTION 'injected serialization failure' USING ERRCODE = '40001';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_first_entry BEFORE INSERT ON journal_entries FOR EACH ROW EXECUTE FUNCTION fail_first_entry();
    `);
    const first = { ...depositCommand({ tenantId }, 'wl_first', '5.00'), reference: { type: 'deposit', id: reference } };
    // The same commandId for another command: whichever the ledger decides first wins it.
    const reuse = { ...depositCommand({ tenantId }, 'wl_second', '7.00'), commandId: first.commandId };
    const [firstReply, reuseReply] = await Promise.all([
      ledger.client.request(first, { timeoutMs: 20_000 }),
      ledger.client.request(reuse, { timeoutMs: 20_000 }),
    ]);

    expect(firstReply).toMatchObject({ status: 'posted' });
    expect(reuseReply).toMatchObject({ status: 'rejected', error: { code: 'COMMAND_ID_REUSED' } });
    expect(await walletBalance(ledger.db, tenantId, 'wl_first')).toBe('5');
    // Its account was opened when the command was locked for, and nothing moved into it.
    expect(await walletBalance(ledger.db, tenantId, 'wl_second')).toBe('0');
    expect(await ledgerInvariantViolations(ledger.db)).toEqual([]);
  });
});
