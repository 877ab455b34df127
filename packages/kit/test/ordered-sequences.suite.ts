import { createDb, type Db, migrate } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';

/**
 * Reconciliation's high-water marks and the journal's sealing assume a seq taken later is higher.
 * A sequence with a per-session cache breaks that, so a service's migrate step refuses it.
 */
describe('sequences handed out in order', () => {
  let db: Db;
  let url: string;

  beforeAll(async () => {
    url = await createTestDatabase('sequences');
    db = createDb(url, { applicationName: 'kit-ordered-sequences-test' });
    await db.raw('CREATE TABLE entries (seq bigserial PRIMARY KEY)');
  });

  afterAll(async () => {
    await db.destroy();
  });

  it('refuses to start on a sequence with CACHE above 1, naming it, and starts once it is back to 1', async () => {
    await db.raw('ALTER SEQUENCE entries_seq_seq CACHE 20');
    await expect(migrate(db, [])).rejects.toThrow('entries_seq_seq (CACHE 20)');

    await db.raw('ALTER SEQUENCE entries_seq_seq CACHE 1');
    await expect(migrate(db, [])).resolves.toBeUndefined();
  });

  it('shows why: with a cache, a session takes a seq below one another session already committed', async () => {
    await db.raw('ALTER SEQUENCE entries_seq_seq CACHE 20');
    const [first, second] = [createDb(url, { poolMax: 1 }), createDb(url, { poolMax: 1 })];
    try {
      const early = await first.raw<{ rows: Array<{ seq: string }> }>('INSERT INTO entries DEFAULT VALUES RETURNING seq::text');
      const later = await second.raw<{ rows: Array<{ seq: string }> }>('INSERT INTO entries DEFAULT VALUES RETURNING seq::text');
      const thenFirstAgain = await first.raw<{ rows: Array<{ seq: string }> }>('INSERT INTO entries DEFAULT VALUES RETURNING seq::text');
      expect(BigInt(later.rows[0]?.seq ?? 0)).toBeGreaterThan(BigInt(thenFirstAgain.rows[0]?.seq ?? 0));
      expect(BigInt(thenFirstAgain.rows[0]?.seq ?? 0)).toBeGreaterThan(BigInt(early.rows[0]?.seq ?? 0));
    } finally {
      await Promise.all([first.destroy(), second.destroy()]);
      await db.raw('ALTER SEQUENCE entries_seq_seq CACHE 1');
    }
  });
});
