import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LedgerPostV1, LedgerResultV1 } from '@wallet/contracts';
import { createDb, type Db } from '@wallet/kit';
import { LedgerCommandClient, LedgerReplyTimeout } from '@wallet/money-commands';
import { createTestVhost, freePort, waitFor } from '@wallet/kit/testing';
import { archivingSettings, backup, type BackupSettings, createStanza, listBackups, writeBackupConfig } from '../../scripts/lib/backups';
import { type Formation, type FormationNode, nodeSocketDir, startFormation } from '../../scripts/lib/pg-auto-failover';
import { type RunningService, start } from '../../services/ledger/src/main';
import {
  depositCommand,
  INTERNAL_SECRET,
  ledgerInvariantViolations,
  newTenantId,
  transferCommand,
} from '../../services/ledger/test/support';

/**
 * The ledger on a pg_auto_failover formation (a monitor, a primary and its synchronous standby).
 * The primary's machine dies (keeper and PostgreSQL killed with SIGKILL) while commands stream
 * in; the monitor promotes the standby and the ledger finds it. Every command the ledger
 * answered `posted` (what payments answers 201 on) is on the new primary.
 */
let formation: Formation;
let ledger: RunningService | undefined;
let client: LedgerCommandClient | undefined;
let db: Db | undefined;

let backups: BackupSettings;

beforeAll(async () => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'wallet-formation-'));
  backups = { configFile: path.join(base, 'pgbackrest.conf'), stanza: 'formation' };
  // Every node archives its WAL with pgBackRest: whichever is primary feeds the one repository.
  formation = await startFormation(
    base,
    { monitor: await freePort(), nodes: [await freePort(), await freePort()] },
    { settings: archivingSettings(backups) },
  );
  const socketDir = await nodeSocketDir(formation.nodes[0] as FormationNode);
  writeBackupConfig(backups.configFile, {
    stanzas: [{ stanza: backups.stanza, servers: formation.nodes, socketDir }],
    repoPath: path.join(base, 'backups', 'repo'),
    workDir: path.join(base, 'backups', 'work'),
  });
  await createStanza(backups);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await ledger?.close();
  await db?.destroy();
  await formation?.stop();
}, 60_000);

/** Sent again after a reply deadline until answered: the ledger answers a repeat from its record. */
async function answered(sender: LedgerCommandClient, command: LedgerPostV1): Promise<LedgerResultV1> {
  for (;;) {
    try {
      return await sender.request(command, { timeoutMs: 3_000 });
    } catch (error) {
      if (!(error instanceof LedgerReplyTimeout)) throw error;
    }
  }
}

test('a command answered posted before, during or after a failover is on the new primary, once', async () => {
  const first = await formation.waitForPrimary({ withStandby: true });
  const url = formation.url('wallet_ledger_failover');
  const amqpUrl = await createTestVhost('ledger_failover');
  ledger = await start({
    ...process.env,
    LEDGER_DATABASE_URL: url,
    AMQP_URL: amqpUrl,
    LEDGER_PORT: '0',
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    LEDGER_PARTITIONS: '2',
  });
  client = await LedgerCommandClient.connect(amqpUrl, 'failover-test-client');
  const tenantId = newTenantId();
  const wallets = Array.from({ length: 10 }, (_, index) => `wl_f${index}`);
  for (const wallet of wallets)
    expect(await answered(client, depositCommand({ tenantId }, wallet, '1000.00'))).toMatchObject({ status: 'posted' });

  const posted = new Set<string>();
  let killed = false;
  const sender = client;
  const stream = async (worker: number): Promise<void> => {
    for (let index = 0; index < 120; index += 1) {
      const command = transferCommand(
        { tenantId },
        wallets[(worker + index) % 10] as string,
        wallets[(worker + index + 3) % 10] as string,
        '1.00',
      );
      const result = await answered(sender, command);
      if (result.status === 'posted') posted.add(command.commandId);
    }
  };
  const streaming = Promise.all([0, 1, 2, 3].map(stream));
  await waitFor(async () => (posted.size >= 80 ? true : undefined), { timeoutMs: 60_000, what: 'transfers posted before the failover' });
  const atKill = posted.size;
  formation.kill(first);
  killed = true;
  const failedOverAt = Date.now();
  const second = await formation.waitForPrimary({ not: first, timeoutMs: 90_000 });
  const failoverMs = Date.now() - failedOverAt;
  await streaming;
  expect(killed).toBe(true);
  expect(second.port).not.toBe(first.port);
  expect(posted.size).toBe(480);
  expect(posted.size).toBeGreaterThan(atKill);
  expect(failoverMs).toBeLessThan(90_000);

  db = createDb(url, { poolMax: 2 });
  expect(Number((await db.raw('SELECT inet_server_port() AS port')).rows[0].port)).toBe(second.port);
  const onNewPrimary = new Set(await db('processed_commands').whereRaw("result->>'status' = 'posted'").pluck('command_id'));
  for (const commandId of posted) expect(onNewPrimary.has(commandId)).toBe(true);
  const entries = await db('journal_entries').count<{ count: string }[]>('* as count');
  expect(Number(entries[0]?.count)).toBe(onNewPrimary.size);
  expect(await ledgerInvariantViolations(db)).toEqual([]);
}, 240_000);

test('archives and backs up from whichever node is primary: after the failover, from the promoted standby', async () => {
  const primary = await formation.waitForPrimary();
  await createStanza(backups);
  await backup(backups);
  const taken = await listBackups(backups);
  expect(taken).toHaveLength(1);
  expect(primary.port).toBe(Number((await (db as Db).raw('SELECT inet_server_port() AS port')).rows[0].port));
}, 120_000);
