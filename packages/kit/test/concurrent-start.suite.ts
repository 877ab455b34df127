import { createDb, createIndexConcurrently, ensureDatabase, migrate, type Migration } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';

/**
 * N instances of a service start side by side (npm run start:cluster starts two of each at
 * once): each makes sure its database exists and applies the migrations. Neither may fail the
 * start of the others.
 */
describe('instances starting side by side', () => {
  it('all find the database made when they race to create it', async () => {
    const url = new URL(await createTestDatabase('race'));
    url.pathname = `${url.pathname}_n`;
    await expect(Promise.all(Array.from({ length: 6 }, () => ensureDatabase(url.toString())))).resolves.toHaveLength(6);
    const db = createDb(url.toString(), { poolMax: 1 });
    await expect(db.raw('SELECT 1')).resolves.toBeDefined();
    await db.destroy();
  });

  it('wait for the one applying the migrations, an index built concurrently among them, and each runs once', async () => {
    const url = await createTestDatabase('migrate');
    const slow: Migration = {
      name: '001_slow',
      up: async (knex) => {
        await knex.raw('CREATE TABLE applied (at timestamptz NOT NULL DEFAULT now())');
        await knex.raw('SELECT pg_sleep(0.5)');
        await knex.raw('INSERT INTO applied DEFAULT VALUES');
      },
    };
    // It waits out every snapshot older than itself: a waiting instance must not hold one.
    const concurrentIndex: Migration = {
      name: '002_concurrent_index',
      transaction: false,
      up: (knex) => createIndexConcurrently(knex, 'applied_at', 'applied (at)'),
    };
    const instances = Array.from({ length: 3 }, () => createDb(url, { poolMax: 2 }));
    try {
      await expect(Promise.all(instances.map((db) => migrate(db, [slow, concurrentIndex])))).resolves.toHaveLength(3);
      const applied = await instances[0]?.('applied').count<Array<{ count: string }>>('* as count');
      expect(applied?.[0]?.count).toBe('1');
    } finally {
      await Promise.all(instances.map((db) => db.destroy()));
    }
  });
});
