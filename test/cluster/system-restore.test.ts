import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, createLogger } from '@wallet/kit';
import { freePort, testServerUrls, waitFor } from '@wallet/kit/testing';
import { isWalletApiError, WalletClient } from '@wallet/sdk';
import { archivingSettings, type BackupSettings, createStanza, writeBackupConfig } from '../../scripts/lib/backups';
import { crashNode, type PostgresNode, startPostgresNode } from '../../scripts/lib/postgres-nodes';
import { createTenant, type ScaleTenant } from '../../scripts/lib/scale-setup';
import { dropSystem, type RunningSystem, startSystem, type SystemOptions } from '../../scripts/lib/system';
import { archiveWalThroughNow, openForWrites, ops } from './restore-drill';

/**
 * The restore drill of the whole system: the five services on a PostgreSQL server that archives
 * its WAL through pgBackRest, tenants' transfers going on while `npm run ops -- backup` runs, then
 * `restore --to <moment>` and the system started again on the restored databases. Every transfer
 * answered 201 before the moment is there, completed with its one entry; none sent after it is;
 * and the platform's reconciliation is `ok`. The databases share one server, so the restore is
 * one cut through all of them: what payments and the ledger hold agrees at any moment.
 */
const logger = createLogger({ service: 'system-restore-drill', level: 'silent' });
const SYSTEM_KEY = `sys_restore_${randomUUID()}`;
/** A transfer answered or sent this close to the moment is asserted on neither side of it. */
const MARGIN_MS = 100;
const SENDERS = 3;
/** Each sender's rest between transfers: a few hundred transfers in all, the drill's cost mostly the system's start. */
const PACE_MS = 100;

let base: string;
let settings: BackupSettings;
let server: PostgresNode | undefined;
let options: SystemOptions;
let system: RunningSystem | undefined;

beforeAll(async () => {
  base = mkdtempSync(path.join(os.tmpdir(), 'wallet-system-restore-'));
  settings = { configFile: path.join(base, 'pgbackrest.conf'), stanza: 'wallet' };
  server = await startPostgresNode(base, 'primary', await freePort(), archivingSettings(settings));
  writeBackupConfig(settings.configFile, {
    stanzas: [{ stanza: settings.stanza, servers: [server], socketDir: base }],
    repoPath: path.join(base, 'repo'),
    workDir: path.join(base, 'work'),
  });
  await createStanza(settings);
  const serverUrl = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
  options = {
    serverUrl,
    amqpServerUrl: testServerUrls().amqpUrl,
    // Under the test run's id: its teardown sweeps the vhosts should this file not get to.
    runId: `${testServerUrls().runId}_restore`,
    systemKey: SYSTEM_KEY,
    logLevel: 'error',
    extraEnv: { DATABASE_URL: serverUrl },
  };
  system = await startSystem(options);
}, 180_000);

afterAll(async () => {
  await system?.stop();
  if (options) await dropSystem(options.serverUrl, options.amqpServerUrl, options.runId).catch(() => undefined);
  if (server) await crashNode(server).catch(() => undefined);
  rmSync(base, { recursive: true, force: true });
}, 60_000);

interface Answered {
  id: string;
  /** The client's clock before the request left, and once its 201 had been read. */
  sentAt: number;
  answeredAt: number;
}

interface TransferLoad {
  answered: Answered[];
  /** Answers other than 201 (a 202 or an error): neither side of the moment is asserted for them. */
  others: string[];
  stop(): Promise<void>;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function transferOnce(tenant: ScaleTenant, step: number, load: TransferLoad): Promise<void> {
  const from = tenant.wallets[step % tenant.wallets.length]?.id as string;
  const to = tenant.wallets[(step + 1) % tenant.wallets.length]?.id as string;
  let status = 0;
  const sentAt = Date.now();
  try {
    const transfer = await tenant.client.transfers.create(
      { fromWalletId: from, toWalletId: to, amount: '1.00', currencyCode: 'USD' },
      { idempotencyKey: `restore-${randomUUID()}`, onResponse: (meta) => void (status = meta.status) },
    );
    if (status === 201) load.answered.push({ id: transfer.id, sentAt, answeredAt: Date.now() });
    else load.others.push(String(status));
  } catch (error) {
    load.others.push(isWalletApiError(error) ? error.code : String(error));
  }
}

function sendTransfers(tenant: ScaleTenant): TransferLoad {
  let stopped = false;
  const loops: Array<Promise<void>> = [];
  const load: TransferLoad = {
    answered: [],
    others: [],
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
  for (let sender = 0; sender < SENDERS; sender += 1)
    loops.push(
      (async () => {
        for (let step = sender; !stopped; step += SENDERS) {
          await transferOnce(tenant, step, load);
          await pause(PACE_MS);
        }
      })(),
    );
  return load;
}

/**
 * The moment to restore to, once transfers were answered on both sides of it. pgBackRest records
 * a backup's end to the second and restores only to moments after it, hence the second and a half.
 */
async function momentAfter(backupEnded: number, load: TransferLoad): Promise<number> {
  await pause(Math.max(0, backupEnded + 1_500 - Date.now()));
  const moment = Date.now();
  await waitFor(async () => (load.answered.filter((each) => each.sentAt > moment + MARGIN_MS).length >= 10 ? true : undefined), {
    timeoutMs: 30_000,
    what: 'transfers answered after the moment',
  });
  return moment;
}

/** Each transfer's status in payments and its number of journal entries in the ledger. */
async function storedTransfers(
  running: RunningSystem,
  ids: string[],
): Promise<{ statuses: Map<string, string>; entries: Map<string, number> }> {
  const payments = createDb(running.databaseUrl('payments'), { poolMax: 1, logger });
  const ledger = createDb(running.databaseUrl('ledger'), { poolMax: 1, logger });
  try {
    const rows: Array<{ id: string; status: string }> = await payments('transfers').whereIn('id', ids).select('id', 'status');
    const entries: Array<{ reference_id: string; count: string }> = await ledger('journal_entries')
      .where({ reference_type: 'transfer' })
      .whereIn('reference_id', ids)
      .groupBy('reference_id')
      .select('reference_id')
      .count('* as count');
    return {
      statuses: new Map(rows.map((row) => [row.id, row.status])),
      entries: new Map(entries.map((row) => [row.reference_id, Number(row.count)])),
    };
  } finally {
    await Promise.all([payments.destroy(), ledger.destroy()]);
  }
}

/** Waits until payments holds no transfer pending: every command the ledger was sent is answered and every answer applied. */
async function settled(running: RunningSystem, what: string): Promise<void> {
  const payments = createDb(running.databaseUrl('payments'), { poolMax: 1, logger });
  try {
    await waitFor(async () => ((await payments('transfers').where({ status: 'pending' }).select('id')).length === 0 ? true : undefined), {
      timeoutMs: 30_000,
      intervalMs: 250,
      what,
    });
  } finally {
    await payments.destroy();
  }
}

/**
 * Stops the system, restores its server to `moment` through the ops command and starts the
 * system again on it. The broker is not restored: the system comes back on the same vhost, whose
 * durable queues and bindings outlived it, as a database restore leaves RabbitMQ.
 */
async function restoreSystem(moment: number): Promise<RunningSystem> {
  const stopped = system as RunningSystem;
  // Nothing of after the moment waits in a queue for the restored databases.
  await settled(stopped, 'the system to settle before it stops');
  await stopped.stop();
  system = undefined;
  const restored = await ops(settings, 'restore', '--to', new Date(moment).toISOString());
  expect(restored).toMatchObject({ code: 0, err: '' });
  const admin = createDb(options.serverUrl, { poolMax: 1, logger });
  try {
    await openForWrites(admin);
  } finally {
    await admin.destroy();
  }
  // A command the ledger took after the moment is in no database now: payments sends it again
  // once unanswered this long (its default is minutes, for a ledger that is only slow).
  const extraEnv = { ...options.extraEnv, AMQP_URL: stopped.env.AMQP_URL, OUTBOX_RESEND_UNANSWERED_AFTER_MS: '2000' };
  system = await startSystem({ ...options, extraEnv });
  return system;
}

/** Takes the backup under the load and picks the moment after it; stops the load once transfers were answered past the moment and their WAL is archived. */
async function backupUnderLoad(load: TransferLoad): Promise<{ backupEnded: number; moment: number }> {
  await waitFor(async () => (load.answered.length >= 10 ? true : undefined), { timeoutMs: 30_000, what: 'transfers before the backup' });
  const backedUp = await ops(settings, 'backup');
  expect(backedUp).toMatchObject({ code: 0, err: '' });
  const backupEnded = Date.now();
  const moment = await momentAfter(backupEnded, load);
  await load.stop();
  const admin = createDb(options.serverUrl, { poolMax: 1, logger });
  try {
    await archiveWalThroughNow(admin);
  } finally {
    await admin.destroy();
  }
  return { backupEnded, moment };
}

const platformOf = (running: RunningSystem): WalletClient =>
  new WalletClient({ baseUrl: running.baseUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });

/** A tenant whose wallets a mobile money provider funded: deposits payments records, so they reconcile like the transfers. */
function fundedTenant(running: RunningSystem): Promise<ScaleTenant> {
  const plan = { name: 'Restore drill', slug: `restore-${Date.now().toString(36)}`, wallets: 6, funds: '1000.00', fees: true };
  return createTenant(platformOf(running), running.baseUrl, plan, undefined);
}

/**
 * The ledger's own checks (balances equal their lines, every entry balances), then a full run
 * from zero across every tenant, as docs/operations.md asks after a restore: its business_records
 * check finds each transfer's and deposit's one entry, and no entry without its record.
 */
async function expectReconciled(running: RunningSystem): Promise<void> {
  const platform = platformOf(running);
  expect(await platform.system.reconciliation()).toMatchObject({ status: 'ok' });
  const started = await platform.reconciliation.fullRuns.startAcrossTenants();
  const run = await waitFor(
    async () => {
      const now = await platform.reconciliation.runs.get(started.id);
      return 'state' in now && (now.state === 'succeeded' || now.state === 'failed') ? now : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'the full reconciliation run' },
  );
  expect(run).toMatchObject({ state: 'succeeded', status: 'ok' });
  expect(run.result?.checks.map((check) => check.name)).toEqual(
    expect.arrayContaining(['balances', 'entries_balance', 'business_records']),
  );
}

test('the whole system restored to a moment: every transfer answered before it is there, none sent after it, reconciliation ok', async () => {
  const load = sendTransfers(await fundedTenant(system as RunningSystem));
  const { backupEnded, moment } = await backupUnderLoad(load);
  const before = load.answered.filter((each) => each.answeredAt < moment - MARGIN_MS).map((each) => each.id);
  // Sent after it, not answered after it: a transfer answered late may have committed before the moment.
  const after = load.answered.filter((each) => each.sentAt > moment + MARGIN_MS).map((each) => each.id);
  // Some of those before it were sent once the backup had ended: only the archived WAL holds them.
  expect(load.answered.filter((each) => each.sentAt > backupEnded && each.answeredAt < moment - MARGIN_MS).length).toBeGreaterThan(0);

  const restored = await restoreSystem(moment);
  await settled(restored, 'the transfers in flight at the moment to finish');
  const stored = await storedTransfers(restored, [...before, ...after]);
  expect(before.filter((id) => stored.statuses.get(id) !== 'completed' || stored.entries.get(id) !== 1)).toEqual([]);
  expect(after.filter((id) => stored.statuses.has(id) || stored.entries.has(id))).toEqual([]);
  await expectReconciled(restored);
}, 300_000);
