import { randomUUID } from 'node:crypto';
import { floatDepositSchema, treasuryBalancesSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { startTreasuryHarness, type TreasuryHarness } from './support';

/**
 * The request is answered while the ledger is stopped, so it answers 202 pending at the deadline
 * however fast the machine, and only the ledger's posted event (once it is back) can finish the
 * deposit.
 */
let harness: TreasuryHarness;

beforeAll(async () => {
  harness = await startTreasuryHarness({ TREASURY_POSTING_REPLY_TIMEOUT_MS: '10' });
});

afterAll(async () => {
  await harness?.close();
});

it('answers 202 pending past the deadline, and the ledger event completes the deposit once', async () => {
  const caller = await harness.newCaller();
  const key = `idem-${randomUUID()}`;
  const body = { amount: '12.34', currencyCode: 'USD', rail: 'momo' };
  const created = await harness.whileLedgerStopped(() => harness.request(caller, 'POST', '/v1/admin/money/float-deposits', { body, key }));
  expect(created.status).toBe(202);
  const pending = floatDepositSchema.parse(created.body);
  expect(pending).toMatchObject({ status: 'pending', journalEntryId: null, amount: '12.34' });

  const completed = await waitFor(
    async () => {
      const read = await harness.request(caller, 'GET', `/v1/admin/money/float-deposits/${pending.id}`);
      return read.body?.status === 'completed' ? floatDepositSchema.parse(read.body) : undefined;
    },
    { what: 'the ledger event to complete the float deposit' },
  );
  expect(completed.journalEntryId).toMatch(/^je_/);

  // A replay is the answer the client got; it moves nothing again.
  const replay = await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', { body, key });
  expect(replay.status).toBe(202);
  expect(replay.body.id).toBe(pending.id);
  const [entries] = await harness
    .ledgerDb('journal_entries')
    .where({ reference_type: 'float_deposit', reference_id: pending.id })
    .count<{ count: string }[]>('* as count');
  expect(Number(entries?.count)).toBe(1);
  const balances = treasuryBalancesSchema.parse((await harness.request(caller, 'GET', '/v1/admin/money/balances')).body);
  expect(balances.data.find((row) => row.currencyCode === 'USD')?.operatingFloat).toBe('12.34');
});

it("reports a deposit answered 202 on treasury's /metrics: its timed-out reply, and its age until the ledger finished it", async () => {
  const metric = async (name: string, recordType: string): Promise<number | undefined> => {
    const text = await (await fetch(`${harness.url}/metrics`)).text();
    const line = text.split('\n').find((each) => each.startsWith(`${name}{`) && each.includes(`record_type="${recordType}"`));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  const caller = await harness.newCaller();
  const timedOutBefore = (await metric('ledger_replies_timed_out_total', 'float_deposit')) as number;
  expect(await metric('pending_records_oldest_age_seconds', 'withdrawal')).toBe(0);

  const created = await harness.whileLedgerStopped(async () => {
    const answer = await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', {
      body: { amount: '1.00', currencyCode: 'USD', rail: 'cash' },
    });
    expect(answer.status).toBe(202);
    expect(await metric('ledger_replies_timed_out_total', 'float_deposit')).toBe(timedOutBefore + 1);
    expect(await metric('pending_records_oldest_age_seconds', 'float_deposit')).toBeGreaterThan(0);
    return floatDepositSchema.parse(answer.body);
  });

  await waitFor(
    async () =>
      (await harness.request(caller, 'GET', `/v1/admin/money/float-deposits/${created.id}`)).body?.status === 'completed'
        ? true
        : undefined,
    {
      what: 'the ledger event to complete the float deposit',
    },
  );
  expect(await metric('pending_records_oldest_age_seconds', 'float_deposit')).toBe(0);
});
