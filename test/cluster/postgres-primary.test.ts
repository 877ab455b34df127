import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, createLogger, type Db, ensureDatabase, isDependencyUnavailable, NoPrimaryError, PrimaryResolver } from '@wallet/kit';
import { freePort, waitFor } from '@wallet/kit/testing';
import { type PostgresPair, startPostgresPair } from '../../scripts/lib/postgres-nodes';

/**
 * A service's database URL naming a primary and its standby (libpq's multi-host form): the kit's
 * pool writes to whichever is the primary, and after a failover to the promoted standby.
 */
const logger = createLogger({ service: 'failover-test', level: 'silent' });
let pair: PostgresPair;
let db: Db | undefined;

beforeAll(async () => {
  pair = await startPostgresPair(mkdtempSync(path.join(os.tmpdir(), 'wallet-postgres-pair-')), {
    primary: await freePort(),
    standby: await freePort(),
  });
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  await pair?.stop();
}, 60_000);

const serverPort = async (each: Db): Promise<number> => Number((await each.raw('SELECT inet_server_port() AS port')).rows[0].port);

test('writes reach the primary, whichever order the hosts are listed in, and after a failover the promoted standby', async () => {
  // The standby is listed first: it answers, but is in recovery.
  const url = pair.url('wallet_failover');
  await ensureDatabase(url);
  db = createDb(url, { poolMax: 2, logger });
  expect(await serverPort(db)).toBe(pair.primary.port);
  await db.raw('CREATE TABLE transfers (id text PRIMARY KEY)');
  await db('transfers').insert({ id: 'before' });
  // Asynchronous replication: the row is on the standby before the primary goes (until it is,
  // the standby may not even have the database or the table yet).
  const standby = createDb(`postgres://postgres@127.0.0.1:${pair.standby.port}/wallet_failover`, { poolMax: 1, logger });
  const rowsOnStandby = () =>
    standby('transfers')
      .count<{ count: string }[]>('* as count')
      .then(
        (rows) => rows[0]?.count,
        () => undefined,
      );
  await waitFor(async () => ((await rowsOnStandby()) === '1' ? true : undefined), {
    timeoutMs: 10_000,
    what: 'the row on the standby',
  });
  await standby.destroy();

  await pair.crash(pair.primary);
  // Mid-failover no host is a primary: the database is unavailable for the moment (a 503), not a bug.
  const midFailover = await new PrimaryResolver(url).primaryUrl().catch((error: unknown) => error);
  expect(midFailover).toBeInstanceOf(NoPrimaryError);
  expect(isDependencyUnavailable(midFailover)).toBe(true);
  await pair.promote(pair.standby);
  // Connections to the lost primary fail; within about a second the pool's new ones reach the new primary.
  await waitFor(
    async () => {
      try {
        await (db as Db)('transfers').insert({ id: 'after' });
        return true;
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 20_000, intervalMs: 200, what: 'a write after the failover' },
  );
  expect(await serverPort(db)).toBe(pair.standby.port);
  expect((await db('transfers').select('id').orderBy('id')).map((row: { id: string }) => row.id)).toEqual(['after', 'before']);
}, 120_000);
