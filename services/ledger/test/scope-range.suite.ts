import type { Knex } from 'knex';
import { createDb, type Db } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { listEntries, referencesAfter } from '../src/features/journal/journal-store';
import { entriesOfScopeBetweenSql, scopeOrderSql, scopeSeqRangeSql } from '../src/features/journal/journal-scope';

/**
 * Reconciliation reads a scope's entries after its mark. On a long history that read must cost
 * what lies after the mark, not what lies before it: a range of journal_entries_scope_seq that
 * starts at the mark, whatever the planner knows of the mark when it plans.
 */
const BIG = 'tn_RANGEBIG';
const SMALL = ['tn_RANGESMALLA', 'tn_RANGESMALLB'];
const ENTRIES = 60_000;
/** The big scope's index range alone is some 200 leaf pages; a read from its start touches them all. */
const PAGES_AFTER_A_MARK = 40;
/** The quiet wallet's lines: in the history's first entries only. */
const QUIET_ENTRIES = 300;
let db: Db;
let bigSeqs: string[];

beforeAll(async () => {
  db = createDb(await createTestDatabase('ledger_scope_range', { migratedFor: 'ledger' }), { poolMax: 2 });
  // Every tenth entry is one of the small tenants', so the big scope's entries are not a contiguous run of seqs.
  await db.raw(
    `INSERT INTO journal_entries (id, tenant_id, environment, kind, reference_type, reference_id, command_key, created_at)
     SELECT 'je_range_' || i, CASE WHEN i % 10 = 0 THEN (?::text[])[1 + (i / 10) % 2] ELSE ? END, 'test',
            'transfer', CASE WHEN i % 7 = 0 THEN 'deposit' ELSE 'transfer' END, 'tx_range_' || i, md5('range' || i)::uuid, now()
       FROM generate_series(1, ?::int) AS i`,
    [SMALL, BIG, ENTRIES],
  );
  // Two lines an entry between busy wallets; one quiet wallet moved only in the first entries of the history.
  await db.raw(
    `INSERT INTO accounts (id, tenant_id, environment, currency_code, name, wallet_id, normal_side)
     SELECT 'ac_range_' || w, ?, 'test', 'USD', 'wallet:owner-' || w, w, 'CR' FROM unnest(array['wl_busya', 'wl_busyb', 'wl_quiet']) AS w`,
    [BIG],
  );
  await db.raw(
    `INSERT INTO journal_lines (entry_seq, line_no, account_num, direction, amount, balance_after)
     SELECT e.seq, n.line_no, a.num, n.direction, 1, 0
       FROM journal_entries e
      CROSS JOIN (VALUES (1::smallint, 'DR'), (2::smallint, 'CR')) AS n(line_no, direction)
       JOIN accounts a ON a.id = CASE WHEN n.line_no = 1 THEN 'ac_range_wl_busya'
                                      WHEN substr(e.id, 10)::int <= ? THEN 'ac_range_wl_quiet' ELSE 'ac_range_wl_busyb' END
      WHERE e.tenant_id = ?`,
    [QUIET_ENTRIES, BIG],
  );
  await db.raw('ANALYZE journal_entries, journal_lines, accounts');
  bigSeqs = (await db('journal_entries').where({ tenant_id: BIG }).orderBy('journal_entries.seq').select(db.raw('seq::text AS seq'))).map(
    (row: { seq: string }) => row.seq,
  );
});

afterAll(async () => {
  await db?.destroy();
});

interface Explained {
  rows: Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }>;
}

/** The statement's answer, and the shared buffers its plan touched. */
async function readWithBuffers(
  sql: string,
  bindings: readonly Knex.RawBinding[],
): Promise<{ seqs: string[]; buffers: number; plan: string }> {
  const answer = await db.raw(sql, bindings);
  const explained: Explained = await db.raw(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, bindings);
  const plan = (explained.rows[0]?.['QUERY PLAN'][0]?.Plan ?? {}) as { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number };
  return {
    seqs: (answer.rows as Array<{ seq: string }>).map((row) => row.seq),
    buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0),
    plan: JSON.stringify(explained.rows),
  };
}

const bigKey = `hashtext(?::text || '/' || ?::text)`;

describe("a scope's entries after a mark deep in its history", () => {
  it('are read from the mark on: exactly those entries, in seq order, a few pages', async () => {
    const mark = bigSeqs[bigSeqs.length - 11] as string;
    const read = await readWithBuffers(
      `SELECT j.seq::text AS seq FROM journal_entries j
        WHERE ${scopeSeqRangeSql('j', bigKey, '?::bigint')} AND j.tenant_id = ? AND j.environment = 'test'
        ORDER BY ${scopeOrderSql('j')} LIMIT 1000`,
      [BIG, 'test', mark, BIG, 'test', BIG],
    );
    expect(read.seqs).toEqual(bigSeqs.slice(-10));
    expect(read.plan).toContain('journal_entries_scope_seq');
    expect(read.plan).not.toMatch(/"Sort"/);
    expect(read.buffers).toBeLessThan(PAGES_AFTER_A_MARK);
  });

  it('between two marks: the entries in (after, through], a few pages, the history before unread', async () => {
    const from = bigSeqs.length - 2_000;
    const range = entriesOfScopeBetweenSql(
      'j',
      { tenantId: BIG, environment: 'test' },
      bigSeqs[from] as string,
      bigSeqs[from + 25] as string,
    );
    const read = await readWithBuffers(
      `SELECT j.seq::text AS seq FROM journal_entries j WHERE ${range.sql} ORDER BY ${scopeOrderSql('j')}`,
      range.bindings,
    );
    expect(read.seqs).toEqual(bigSeqs.slice(from + 1, from + 26));
    expect(read.buffers).toBeLessThan(PAGES_AFTER_A_MARK);
  });

  it('per scope in a lateral join, the marks unknown when it is planned: each scope its own short range', async () => {
    const marks = [BIG, ...SMALL].map((tenantId) => ({
      tenantId,
      afterSeq: tenantId === BIG ? (bigSeqs[bigSeqs.length - 6] as string) : String(ENTRIES),
    }));
    const read = await readWithBuffers(
      `SELECT e.seq::text AS seq FROM unnest(?::text[], ?::bigint[]) AS s(tenant_id, after_seq)
        CROSS JOIN LATERAL (
          SELECT j.seq FROM journal_entries j
           WHERE ${scopeSeqRangeSql('j', `hashtext(s.tenant_id || '/' || 'test')`, 's.after_seq')} AND j.tenant_id = s.tenant_id AND j.environment = 'test'
           ORDER BY ${scopeOrderSql('j')} LIMIT 1000
        ) e ORDER BY e.seq`,
      [marks.map((mark) => mark.tenantId), marks.map((mark) => mark.afterSeq)],
    );
    expect(read.seqs).toEqual(bigSeqs.slice(-5));
    expect(read.plan).toContain('journal_entries_scope_seq');
    expect(read.plan).not.toContain('journal_entries_pkey');
    expect(read.buffers).toBeLessThan(PAGES_AFTER_A_MARK);
  });

  it("check 3's listing of a record type after the mark finds that type's entries after it, and looked through the scope's newest", async () => {
    const mark = bigSeqs[bigSeqs.length - 50] as string;
    const listed = await referencesAfter(db, {
      referenceType: 'deposit',
      scopes: [{ tenantId: BIG, environment: 'test', afterSeq: mark }],
      limitPerScope: 1000,
    });
    const expected = await db('journal_entries')
      .where({ tenant_id: BIG, reference_type: 'deposit' })
      .andWhere('seq', '>', mark)
      .orderBy('journal_entries.seq')
      .select(db.raw('seq::text AS seq'));
    expect(listed.data.map((entry) => entry.seq)).toEqual(expected.map((row: { seq: string }) => row.seq));
    expect(listed.scanned).toEqual([{ tenantId: BIG, environment: 'test', throughSeq: bigSeqs[bigSeqs.length - 1] }]);
  });
});

describe('the journal of one wallet or account, whose last movement is long ago', () => {
  /** The statement a list ran for its entries, as knex sent it. */
  async function listedWithStatement(filter: {
    walletId?: string;
    accountName?: string;
    kind?: string;
    beforeSeq?: string;
  }): Promise<{ seqs: string[]; statement: { sql: string; bindings: Knex.RawBinding[] } }> {
    const statements: Array<{ sql: string; bindings: Knex.RawBinding[] }> = [];
    const capture = (query: { sql: string; bindings?: Knex.RawBinding[] }): void => {
      if (/from "journal_entries" as "e"/.test(query.sql)) statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
    };
    db.on('query', capture);
    try {
      const { entries } = await listEntries(db, { tenantId: BIG, environment: 'test' }, { ...filter, limit: 10, examineMax: 10_000 });
      const statement = statements[0];
      if (!statement) throw new Error('no statement on journal_entries was sent');
      return { seqs: entries.map((entry) => entry.seq), statement };
    } finally {
      db.off('query', capture);
    }
  }

  /** The oracle, straight from the lines: the quiet wallet's entries, newest first. */
  async function quietSeqs(): Promise<string[]> {
    const rows: Array<{ seq: string }> = (
      await db.raw(
        `SELECT DISTINCT l.entry_seq::text AS seq, l.entry_seq FROM journal_lines l JOIN accounts a ON a.num = l.account_num WHERE a.wallet_id = 'wl_quiet' ORDER BY l.entry_seq DESC`,
      )
    ).rows;
    return rows.map((row) => row.seq);
  }

  it('is found through its lines: its newest entries, a few pages, not every newer entry of the scope', async () => {
    const listed = await listedWithStatement({ walletId: 'wl_quiet' });
    expect(listed.seqs).toEqual((await quietSeqs()).slice(0, 11));
    const explained = await readWithBuffers(listed.statement.sql.replace(/\$\d+/g, '?'), listed.statement.bindings);
    // Its lines, then one look-up per entry shown (three pages each); walking the scope's newer entries reads thousands.
    expect(explained.buffers).toBeLessThan(PAGES_AFTER_A_MARK + 11 * 3);
  });

  it('pages on, by name too, with the other filters applied to what the lines find', async () => {
    const first = await listedWithStatement({ accountName: 'wallet:owner-wl_quiet', kind: 'transfer' });
    const next = await listedWithStatement({ accountName: 'wallet:owner-wl_quiet', kind: 'transfer', beforeSeq: first.seqs[9] as string });
    expect([...first.seqs.slice(0, 10), ...next.seqs.slice(0, 10)]).toEqual((await quietSeqs()).slice(0, 20));
    expect(await listEntries(db, { tenantId: BIG, environment: 'test' }, { walletId: 'wl_nobody', limit: 10, examineMax: 10_000 })).toEqual(
      { entries: [], continueBeforeSeq: null },
    );
  });
});
