import { type LedgerPostV1 } from '@wallet/contracts';
import { purgeRule } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import { processedCommandsRetentionRule } from '../src/features/posting/posting-retention';
import { start } from '../src/main';
import { commandId, depositCommand, type LedgerHarness, newTenantId, startLedgerHarness, walletBalance } from './support';

const WINDOW_DAYS = 30;
const rule = processedCommandsRetentionRule(WINDOW_DAYS);

/**
 * Retention of the ledger's duplicate memory (processed_commands): inside the window a
 * redelivered command is answered from its record; past it the record is gone, and a command
 * that had posted is still never posted twice (the journal's UNIQUE command id).
 */
describe('processed_commands retention', () => {
  let ledger: LedgerHarness;
  beforeAll(async () => {
    ledger = await startLedgerHarness();
  });
  afterAll(async () => {
    await ledger.close();
  });

  /** The command's record as if it had been written `age` ago. */
  async function age(command: { commandId: string }, interval: string): Promise<void> {
    await ledger.db.raw(`UPDATE processed_commands SET created_at = now() - CAST(? AS interval) WHERE command_id = ?`, [
      interval,
      command.commandId,
    ]);
  }

  async function entriesOf(command: { commandId: string }): Promise<number> {
    const [row] = await ledger
      .db('journal_entries')
      .whereRaw('command_key = command_key(?)', [command.commandId])
      .count<Array<{ count: string }>>('* as count');
    return Number(row?.count);
  }

  async function recorded(command: { commandId: string }): Promise<boolean> {
    return (await ledger.db('processed_commands').where({ command_id: command.commandId }).first('command_id')) !== undefined;
  }

  it('keeps a record just inside the window: its redelivery gets the original result and posts nothing', async () => {
    const tenantId = newTenantId();
    const command = depositCommand({ tenantId }, 'wl_in', '10.00');
    const first = await ledger.client.request(command);
    await age(command, `${WINDOW_DAYS} days -5 minutes`);
    await purgeRule(ledger.db, rule);
    expect(await recorded(command)).toBe(true);
    const again = await ledger.client.request(command);
    expect(again).toMatchObject({
      status: 'posted',
      journalEntryId: first.journalEntryId,
      duplicate: true,
      processedAt: first.processedAt,
    });
    expect(await entriesOf(command)).toBe(1);
    expect(await walletBalance(ledger.db, tenantId, 'wl_in')).toBe('10');
  });

  it('past the window, a command that posted is answered from its journal entry and never posts twice, alone or among new commands', async () => {
    const tenantId = newTenantId();
    const command = depositCommand({ tenantId }, 'wl_old', '7.00');
    const first = await ledger.client.request(command);
    await age(command, `${WINDOW_DAYS} days 5 minutes`);
    expect(await purgeRule(ledger.db, rule)).toBeGreaterThanOrEqual(1);
    expect(await recorded(command)).toBe(false);

    const again = await ledger.client.request(command);
    expect(again).toMatchObject({
      status: 'posted',
      journalEntryId: first.journalEntryId,
      duplicate: true,
      reference: command.reference,
      error: null,
    });
    // Redelivered in one message with new commands: those post, it does not.
    const fresh = depositCommand({ tenantId }, 'wl_old', '1.00');
    const [old, added] = await ledger.client.requestMany([command, fresh]);
    expect(old).toMatchObject({ status: 'posted', journalEntryId: first.journalEntryId, duplicate: true });
    expect(added).toMatchObject({ status: 'posted', duplicate: false });
    expect(await entriesOf(command)).toBe(1);
    expect(await walletBalance(ledger.db, tenantId, 'wl_old')).toBe('8');
  });

  it('past the window, another command under a posted command id is refused as COMMAND_ID_REUSED', async () => {
    const tenantId = newTenantId();
    const command = depositCommand({ tenantId }, 'wl_reuse', '3.00');
    await ledger.client.request(command);
    await age(command, `${WINDOW_DAYS + 1} days`);
    await purgeRule(ledger.db, rule);
    const other: LedgerPostV1 = { ...depositCommand({ tenantId }, 'wl_reuse', '300.00'), commandId: command.commandId };
    expect(await ledger.client.request(other)).toMatchObject({ status: 'rejected', error: { code: 'COMMAND_ID_REUSED' } });
    expect(await walletBalance(ledger.db, tenantId, 'wl_reuse')).toBe('3');
  });

  it('purges a backlog in small statements while postings go on', async () => {
    // A backlog of expired records, many batches' worth.
    await ledger.db.raw(
      `INSERT INTO processed_commands (command_id, tenant_id, payload_hash, result, created_at)
       SELECT 'backlog-' || n, 'tn_backlog', repeat('0', 64), '{}'::json, now() - interval '40 days' FROM generate_series(1, 3000) AS n`,
    );
    const tenantId = newTenantId();
    const batchEnds: number[] = [];
    const postedAt: number[] = [];
    const batchSize = 100;
    const purging = purgeRule(
      ledger.db,
      { ...rule, batchSize },
      {
        onBatch: async () => {
          batchEnds.push(Date.now());
          // Mid-pass, with its first statements done, postings must go through: the pass waits for
          // a few (and would time out were they blocked), then goes on paced like a background job.
          if (batchEnds.length === 1)
            await waitFor(async () => (postedAt.length >= 3 ? true : undefined), { timeoutMs: 10_000, what: 'postings during the purge' });
          await new Promise((resolve) => setTimeout(resolve, 5));
        },
      },
    );
    const posting = (async () => {
      for (let index = 0; index < 10; index += 1) {
        const result = await ledger.client.request(depositCommand({ tenantId }, 'wl_busy', '1.00', { id: commandId('busy') }));
        expect(result).toMatchObject({ status: 'posted', duplicate: false });
        postedAt.push(Date.now());
      }
    })();
    const [purged] = await Promise.all([purging, posting]);
    expect(purged).toBeGreaterThanOrEqual(3000);
    expect(batchEnds.length).toBeGreaterThanOrEqual(30);
    const [firstBatch, lastBatch] = [batchEnds[0] as number, batchEnds[batchEnds.length - 1] as number];
    // Postings committed between the pass's first and last statement: it held nothing they needed.
    expect(postedAt.filter((at) => at > firstBatch && at < lastBatch).length).toBeGreaterThan(0);
    expect(await walletBalance(ledger.db, tenantId, 'wl_busy')).toBe('10');
    expect(await ledger.db('processed_commands').where({ tenant_id: 'tn_backlog' }).first('command_id')).toBeUndefined();
  });

  it('a purge statement whose transaction stays open holds nothing a posting waits for', async () => {
    await ledger.db.raw(
      `INSERT INTO processed_commands (command_id, tenant_id, payload_hash, result, created_at)
       SELECT 'held-' || n, 'tn_held', repeat('0', 64), '{}'::json, now() - interval '40 days' FROM generate_series(1, 500) AS n`,
    );
    const tenantId = newTenantId();
    let release: () => void = () => undefined;
    const releasing = new Promise<void>((resolve) => {
      release = resolve;
    });
    let deleted: (count: number) => void = () => undefined;
    const hasDeleted = new Promise<number>((resolve) => {
      deleted = resolve;
    });
    const purge = ledger.db.transaction(async (tx) => {
      deleted(await purgeRule(tx, { ...rule, batchSize: 200 }, { maxBatches: 1 }));
      await releasing;
    });
    try {
      expect(await hasDeleted).toBe(200);
      // Its row locks and the BRIN desummarizing are held until it commits; postings go on meanwhile.
      for (let index = 0; index < 3; index += 1) {
        expect(await ledger.client.request(depositCommand({ tenantId }, 'wl_held', '1.00'), { timeoutMs: 5_000 })).toMatchObject({
          status: 'posted',
        });
      }
    } finally {
      release();
      await purge;
    }
    expect(await walletBalance(ledger.db, tenantId, 'wl_held')).toBe('3');
  });

  it('the service runs the purge with LEDGER_PROCESSED_COMMANDS_RETENTION_DAYS every RETENTION_INTERVAL_MS', async () => {
    const tenantId = newTenantId();
    const command = depositCommand({ tenantId }, 'wl_svc', '2.00');
    const keep = depositCommand({ tenantId }, 'wl_svc', '2.00');
    await ledger.client.requestMany([command, keep]);
    await age(command, '8 days');
    await age(keep, '6 days');
    const service = await start({ ...ledger.env, LEDGER_PROCESSED_COMMANDS_RETENTION_DAYS: '7', RETENTION_INTERVAL_MS: '1000' });
    try {
      // The row is gone once the delete commits; the pass counts it a moment later, after its last batch.
      const purged = /^retention_rows_purged_total\{table="processed_commands",service="ledger"\} [1-9]/m;
      const metrics = await waitFor(
        async () => {
          const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
          return purged.test(text) ? text : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 100, what: 'a counted purge pass' },
      );
      expect(await recorded(command)).toBe(false);
      expect(await recorded(keep)).toBe(true);
      expect(metrics).toMatch(/^retention_behind_seconds\{table="processed_commands",service="ledger"\} 0$/m);
    } finally {
      await service.close();
    }
  });

  it('a service purges RETENTION_FIRST_PASS_DELAY_MS after its start, not a whole RETENTION_INTERVAL_MS later', async () => {
    const command = depositCommand({ tenantId: newTenantId() }, 'wl_first', '2.00');
    await ledger.client.request(command);
    await age(command, `${WINDOW_DAYS + 1} days`);
    // The default interval, ten minutes: only the first pass can purge within this test.
    const service = await start({ ...ledger.env, RETENTION_FIRST_PASS_DELAY_MS: '1000' });
    try {
      for (let waited = 0; waited < 10_000 && (await recorded(command)); waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await recorded(command)).toBe(false);
    } finally {
      await service.close();
    }
  });
});
