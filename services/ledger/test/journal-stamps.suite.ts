import { createDb, type Db } from '@wallet/kit';
import { journalPageSchema } from '@wallet/contracts';
import { sealStampRanges } from '../src/features/journal/journal-stamps';
import { depositCommand, type LedgerHarness, newTenantId, startLedgerHarness } from './support';

/**
 * Real: PostgreSQL, RabbitMQ and the ledger over HTTP. An entry whose transaction is still open
 * when later seqs commit, stamped long before them, must still be found by a time window: the
 * stamp ranges may only summarize seqs no open transaction can still write.
 */
let ledger: LedgerHarness;
let other: Db;
const tenant = newTenantId();

beforeAll(async () => {
  ledger = await startLedgerHarness({ env: { LEDGER_JOURNAL_STAMP_SEAL_INTERVAL_MS: '3600000' } });
  other = createDb(ledger.databaseUrl, { poolMax: 1 });
}, 60_000);

afterAll(async () => {
  await other.destroy();
  await ledger.close();
});

async function windowIds(from: string, to: string): Promise<string[]> {
  const response = await ledger.get(`/v1/journal?from=${from}&to=${to}&limit=10`, { tenantId: tenant });
  expect(response.status).toBe(200);
  return journalPageSchema.parse(response.body).data.map((entry) => entry.id);
}

async function sealedThrough(): Promise<bigint> {
  const row: { sealed_through: string } = await ledger.db('journal_stamp_seal').first(ledger.db.raw('sealed_through::text'));
  return BigInt(row.sealed_through);
}

it('does not seal past a seq whose transaction is open, and a window finds its entry, stamped long before, once it commits', async () => {
  await ledger.client.request(depositCommand({ tenantId: tenant }, 'wl_s1', '1.00'));
  const open = await other.transaction();
  const early: { seq: string } = (
    await open.raw(
      `INSERT INTO journal_entries (id, tenant_id, environment, kind, reference_type, reference_id, command_key, created_at)
       VALUES ('je_EARLY', ?, 'test', 'momo_deposit', 'deposit', 'dep_early', md5('early')::uuid, '2020-01-01T12:00:00Z') RETURNING seq::text`,
      [tenant],
    )
  ).rows[0];
  let laterEntryId: string | null = null;
  try {
    laterEntryId = (await ledger.client.request(depositCommand({ tenantId: tenant }, 'wl_s1', '2.00'))).journalEntryId ?? null;
    await sealStampRanges(ledger.db);
    await sealStampRanges(ledger.db);
    expect(await sealedThrough()).toBeLessThan(BigInt(early.seq));
  } finally {
    // Committed even when an expectation failed: an open transaction would hold the pool, and the file, for ever.
    await open.commit();
  }
  await sealStampRanges(ledger.db);
  const laterSeq: { seq: string } = await ledger.db('journal_entries').where({ id: laterEntryId }).first(ledger.db.raw('seq::text'));
  expect(await sealedThrough()).toBeGreaterThanOrEqual(BigInt(laterSeq.seq));
  expect(await windowIds('2020-01-01T00:00:00.000Z', '2020-01-02T00:00:00.000Z')).toEqual(['je_EARLY']);
  expect(await windowIds('2019-01-01T00:00:00.000Z', '2019-01-02T00:00:00.000Z')).toEqual([]);
  const ranges: Array<{ min: Date }> = await ledger.db('journal_stamp_ranges').select('min_created_at as min');
  expect(ranges.some((range) => range.min.toISOString() === '2020-01-01T12:00:00.000Z')).toBe(true);
});

it('summarizes each entry once, its ranges holding exactly the stamps of the seqs they span', async () => {
  for (let index = 0; index < 5; index += 1) await ledger.client.request(depositCommand({ tenantId: tenant }, 'wl_s2', '1.00'));
  await sealStampRanges(ledger.db);
  await sealStampRanges(ledger.db);
  const mismatched = await ledger.db.raw(`
    SELECT r.last_seq FROM journal_stamp_ranges r
     CROSS JOIN LATERAL (SELECT count(*) AS n, min(created_at) AS lo, max(created_at) AS hi FROM journal_entries e WHERE e.seq BETWEEN r.first_seq AND r.last_seq) e
     WHERE e.lo IS DISTINCT FROM r.min_created_at OR e.hi IS DISTINCT FROM r.max_created_at`);
  expect(mismatched.rows).toEqual([]);
  const overlapping = await ledger.db.raw(
    `SELECT a.last_seq FROM journal_stamp_ranges a JOIN journal_stamp_ranges b ON a.last_seq < b.last_seq AND b.first_seq <= a.last_seq`,
  );
  expect(overlapping.rows).toEqual([]);
  const uncovered = await ledger.db.raw(`
    SELECT e.seq FROM journal_entries e, journal_stamp_seal s
     WHERE e.seq <= s.sealed_through AND NOT EXISTS (SELECT 1 FROM journal_stamp_ranges r WHERE e.seq BETWEEN r.first_seq AND r.last_seq)`);
  expect(uncovered.rows).toEqual([]);
});

it('says on /metrics how many seqs are past the sealed ranges, and how old the oldest of them is', async () => {
  const gauge = async (name: string) =>
    Number(
      new RegExp(`^${name}\\{[^}]*\\} ([\\d.e+-]+)$`, 'm').exec(
        await (await fetch(`http://127.0.0.1:${ledger.service.port}/metrics`)).text(),
      )?.[1],
    );
  const unsealed = () => gauge('journal_unsealed_seqs');
  await sealStampRanges(ledger.db);
  await sealStampRanges(ledger.db);
  expect(await unsealed()).toBe(0);
  expect(await gauge('journal_unsealed_age_seconds')).toBe(0);
  await ledger.client.request(depositCommand({ tenantId: tenant }, 'wl_s3', '1.00'));
  await ledger.client.request(depositCommand({ tenantId: tenant }, 'wl_s3', '1.00'));
  const newest: { seq: string } = (await ledger.db.raw('SELECT max(seq)::text AS seq FROM journal_entries')).rows[0];
  expect(await unsealed()).toBe(Number(BigInt(newest.seq) - (await sealedThrough())));
  expect(await unsealed()).toBeGreaterThanOrEqual(2);
  const age = await gauge('journal_unsealed_age_seconds');
  expect(age).toBeGreaterThan(0);
  expect(age).toBeLessThan(60);
});
