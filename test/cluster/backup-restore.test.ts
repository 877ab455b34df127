import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, createLogger, type Db } from '@wallet/kit';
import { freePort, waitFor } from '@wallet/kit/testing';
import { archivingSettings, type BackupSettings, createStanza, writeBackupConfig } from '../../scripts/lib/backups';
import { crashNode, type PostgresNode, startPostgresNode } from '../../scripts/lib/postgres-nodes';
import { archiveWalThroughNow, openForWrites, ops } from './restore-drill';

/**
 * A restore drill with pgBackRest on a server of its own: WAL archived continuously, a full
 * backup taken while writes go on, then `npm run ops -- restore --to <moment>`. Every write
 * committed before that moment is back; none after it.
 */
const logger = createLogger({ service: 'restore-drill', level: 'silent' });
let base: string;
let server: PostgresNode | undefined;
let db: Db | undefined;
let settings: BackupSettings;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  base = mkdtempSync(path.join(os.tmpdir(), 'wallet-restore-drill-'));
  settings = { configFile: path.join(base, 'pgbackrest.conf'), stanza: 'wallet' };
  server = await startPostgresNode(base, 'primary', await freePort(), archivingSettings(settings));
  writeBackupConfig(settings.configFile, {
    stanzas: [{ stanza: settings.stanza, servers: [server], socketDir: base }],
    repoPath: path.join(base, 'repo'),
    workDir: path.join(base, 'work'),
  });
  await createStanza(settings);
  db = createDb(`postgres://postgres@127.0.0.1:${server.port}/postgres`, { poolMax: 2, logger });
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  if (server) await crashNode(server).catch(() => undefined);
  rmSync(base, { recursive: true, force: true });
}, 60_000);

test('a backup taken under writes restores to a moment: every commit before it is there, none after it', async () => {
  const writes = db as Db;
  await writes.raw('CREATE TABLE transfers (seq integer PRIMARY KEY)');
  let next = 0;
  let writing = true;
  const load = (async () => {
    while (writing) await writes('transfers').insert({ seq: (next += 1) });
  })();

  const backedUp = await ops(settings, 'backup');
  expect(backedUp).toMatchObject({ code: 0, err: '' });
  expect(backedUp.out).toMatch(/^backed up: \d{8}-\d{6}F, /);
  // pgBackRest records a backup's end to the second: the moment comes after that second, writes meanwhile.
  const backupEnded = Date.now();
  await waitFor(async () => (next > 50 && Date.now() > backupEnded + 1_500 ? true : undefined), {
    timeoutMs: 20_000,
    what: 'writes after the backup',
  });
  writing = false;
  await load;
  const before = next;
  // The moment reaches pgBackRest to the millisecond: a few of them apart from the last write
  // before it and the first after it, none of those shares its millisecond.
  await pause(5);
  const moment = new Date((await writes.raw('SELECT clock_timestamp() AS now')).rows[0].now);
  await pause(5);
  await writes('transfers').insert([{ seq: before + 1 }, { seq: before + 2 }]);
  // The WAL holding the later writes goes to the repository, so recovery can read past the moment.
  await archiveWalThroughNow(writes);
  await writes.destroy();
  db = undefined;

  const listed = await ops(settings, 'backups');
  expect(listed.out.trim().split('\n')).toHaveLength(1);
  const restored = await ops(settings, 'restore', '--to', moment.toISOString());
  expect(restored).toMatchObject({ code: 0, err: '' });

  db = createDb(`postgres://postgres@127.0.0.1:${(server as PostgresNode).port}/postgres`, { poolMax: 2, logger });
  const reads = db;
  await openForWrites(reads);
  const rows = (await reads('transfers').select('seq').orderBy('seq')).map((row: { seq: number }) => row.seq);
  expect(rows).toEqual(Array.from({ length: before }, (_, index) => index + 1));
}, 180_000);

test('restore refuses a moment it cannot read, changing nothing', async () => {
  expect(await ops(settings, 'restore', '--to', 'yesterday-ish')).toMatchObject({ code: 2 });
  expect(await ops(settings, 'restore')).toMatchObject({ code: 2 });
  expect(await ops(settings, 'backup', '--type', 'weekly')).toMatchObject({ code: 2 });
});
