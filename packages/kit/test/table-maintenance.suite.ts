import { createDb, createLogger, type Db, startTableMaintenance } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';

const logger = createLogger({ service: 'kit-table-maintenance-test', level: 'silent' });

describe('table maintenance', () => {
  let db: Db;

  beforeAll(async () => {
    db = createDb(await createTestDatabase('maintenance'), { applicationName: 'kit-table-maintenance-test' });
    await db.raw('CREATE TABLE things (id bigserial PRIMARY KEY, tenant_id text NOT NULL, payload text NOT NULL)');
    await db.raw('CREATE INDEX things_tenant ON things (tenant_id, payload)');
  });

  afterAll(async () => {
    await db.destroy();
  });

  /** Statistics are flushed by the session that changed the table: do it in one connection. */
  async function changeThenFlush(sql: string): Promise<void> {
    await db.transaction(async (tx) => {
      await tx.raw(sql);
    });
    await db.raw('SELECT pg_stat_force_next_flush()');
    // The flush happens when the session next goes idle; a trivial statement makes it so.
    await db.raw('SELECT 1');
  }

  async function stats(): Promise<{ last_analyze: Date | null; last_vacuum: Date | null; n_dead_tup: string }> {
    await db.raw('SELECT pg_stat_clear_snapshot()');
    const result = await db.raw<{ rows: Array<{ last_analyze: Date | null; last_vacuum: Date | null; n_dead_tup: string }> }>(
      `SELECT last_analyze, last_vacuum, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'things'`,
    );
    const row = result.rows[0];
    if (!row) throw new Error('no statistics row for things');
    return row;
  }

  it('analyzes a table changed past the threshold, vacuums one with dead rows, and leaves a quiet one alone', async () => {
    const maintenance = await startTableMaintenance({ db, logger, intervalMs: 60_000, tableNaptimeMs: 0, force: true });
    try {
      expect(maintenance.active).toBe(true);
      await changeThenFlush(
        `INSERT INTO things (tenant_id, payload) SELECT 'tn_' || (i % 3), repeat('x', 50) FROM generate_series(1, 5000) AS i`,
      );
      expect((await stats()).last_analyze).toBeNull();
      expect(await maintenance.runOnce()).toContain('things');
      expect((await stats()).last_analyze).not.toBeNull();

      // With statistics, a lookup by primary key is planned as one, not as a scan of a tenant's index.
      const plan = await db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(
        `EXPLAIN SELECT * FROM things WHERE tenant_id = 'tn_1' AND id = 4`,
      );
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('things_pkey');

      expect(await maintenance.runOnce()).not.toContain('things');

      await changeThenFlush('DELETE FROM things WHERE id % 2 = 0');
      expect(Number((await stats()).n_dead_tup)).toBeGreaterThan(2000);
      expect(await maintenance.runOnce()).toContain('things');
      const after = await stats();
      expect(after.last_vacuum).not.toBeNull();
      expect(Number(after.n_dead_tup)).toBe(0);
    } finally {
      await maintenance.stop();
    }
  });

  it('leaves a table it just looked after alone for the naptime, but gives a new table its first statistics at once', async () => {
    await db.raw('CREATE TABLE napping (id bigserial PRIMARY KEY, payload text NOT NULL)');
    await db.raw('CREATE TABLE fresh (id bigserial PRIMARY KEY, payload text NOT NULL)');
    const maintenance = await startTableMaintenance({ db, logger, intervalMs: 60_000, tableNaptimeMs: 60_000, force: true });
    try {
      await changeThenFlush(`INSERT INTO napping (payload) SELECT repeat('x', 20) FROM generate_series(1, 2000)`);
      expect(await maintenance.runOnce()).toContain('napping');

      // Changed past the threshold again, and a table never analyzed appears: only the new one is touched.
      await changeThenFlush(`INSERT INTO napping (payload) SELECT repeat('y', 20) FROM generate_series(1, 2000)`);
      await changeThenFlush(`INSERT INTO fresh (payload) SELECT repeat('z', 20) FROM generate_series(1, 500)`);
      const touched = await maintenance.runOnce();
      expect(touched).toContain('fresh');
      expect(touched).not.toContain('napping');
    } finally {
      await maintenance.stop();
    }
  });

  it('does nothing on its own when the server runs autovacuum, unless forced', async () => {
    const setting = await db.raw<{ rows: Array<{ autovacuum: string }> }>(`SELECT current_setting('autovacuum') AS autovacuum`);
    const maintenance = await startTableMaintenance({ db, logger, intervalMs: 60_000 });
    try {
      expect(maintenance.active).toBe(setting.rows[0]?.autovacuum !== 'on');
    } finally {
      await maintenance.stop();
    }
  });
});
