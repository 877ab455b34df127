import type { ChildProcess } from 'node:child_process';
import amqp from 'amqplib';
import { ledgerPartitionQueue, type LedgerPostV1, TOPOLOGY } from '@wallet/contracts';
import { createDb, type Db } from '@wallet/kit';
import { LedgerCommandClient } from '@wallet/money-commands';
import { createTestDatabase, createTestVhost, freePort, waitFor } from '@wallet/kit/testing';
import { hashPartition } from '../src/features/partitions/partition-directory';
import { assertEpochs, claimPartition, PartitionFencedError } from '../src/features/partitions/partition-epochs';
import { decodeMessage, processBatch } from '../src/features/posting/posting-service';
import {
  depositCommand,
  INTERNAL_SECRET,
  type LedgerHarness,
  ledgerInvariantViolations,
  newTenantId,
  spawnLedger,
  startLedgerHarness,
  transferCommand,
} from './support';

function decoded(command: LedgerPostV1) {
  const message = decodeMessage(Buffer.from(JSON.stringify(command)), undefined);
  if (message.type === 'undecodable') throw new Error(message.reason);
  return message.commands.map((arrived) => arrived.command);
}

describe('ledger partitions: the directory and the writers’ epochs', () => {
  let ledger: LedgerHarness;
  beforeAll(async () => {
    ledger = await startLedgerHarness({ env: { LEDGER_PARTITIONS: '4' } });
  });
  afterAll(async () => {
    await ledger?.close();
  });

  it('places a tenant first met in a command on its hashed partition, binds it there, and posts the command', async () => {
    const tenantId = newTenantId();
    expect(await ledger.client.request(depositCommand({ tenantId }, 'wl_placed', '5.00'))).toMatchObject({ status: 'posted' });
    const placed = await ledger.db('ledger_tenant_partitions').where({ tenant_id: tenantId }).first<{ partition: number }>('partition');
    expect(placed?.partition).toBe(hashPartition(tenantId, 4));
    // Its next command goes straight to that partition's queue: the binding is there, so the
    // command no longer reaches the unplaced queue, whose consumer is taken away meanwhile.
    const connection = await amqp.connect(ledger.amqpUrl);
    const channel = await connection.createConfirmChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true });
    await channel.bindQueue(queue, TOPOLOGY.ledgerCommands.unplacedExchange, '');
    expect(await ledger.client.request(depositCommand({ tenantId }, 'wl_placed', '1.00'))).toMatchObject({ status: 'posted' });
    expect((await channel.checkQueue(queue)).messageCount).toBe(0);
    await connection.close();
  });

  it('refuses a batch under an epoch another writer claimed since, writing nothing, and commits under the new one', async () => {
    const tenantId = newTenantId();
    const command = depositCommand({ tenantId }, 'wl_fenced', '7.00');
    const stale = await claimPartition(ledger.db, 3, 'writer-stale');
    const fresh = await claimPartition(ledger.db, 3, 'writer-fresh');
    expect(BigInt(fresh)).toBe(BigInt(stale) + 1n);
    await expect(processBatch(ledger.db, decoded(command), { epochs: new Map([[3, stale]]) })).rejects.toBeInstanceOf(PartitionFencedError);
    expect(await ledger.db('processed_commands').where({ command_id: command.commandId }).first()).toBeUndefined();
    expect(await ledger.db('journal_entries').where({ tenant_id: tenantId }).first()).toBeUndefined();
    const [outcome] = await processBatch(ledger.db, decoded(command), { epochs: new Map([[3, fresh]]) });
    expect(outcome?.result).toMatchObject({ status: 'posted', duplicate: false });
  });

  it('makes a claim wait for the commit in progress under the old epoch, which then lands before the hand-over', async () => {
    const held = await claimPartition(ledger.db, 2, 'writer-committing');
    const tx = await ledger.db.transaction();
    await assertEpochs(tx, new Map([[2, held]]));
    let claimed: string | null = null;
    const claiming = claimPartition(ledger.db, 2, 'writer-next').then((epoch) => {
      claimed = epoch;
      return epoch;
    });
    await waitFor(
      async () => {
        const { rows } = await ledger.db.raw<{ rows: unknown[] }>(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO ledger_partition_epochs%'",
        );
        return rows.length > 0 ? true : undefined;
      },
      { what: 'the claim to wait on the commit' },
    );
    expect(claimed).toBeNull();
    await tx.commit();
    expect(BigInt(await claiming)).toBe(BigInt(held) + 1n);
  });
});

/** The writer (a ledger process) holding each partition that has one, by its pid. */
async function holders(db: Db): Promise<Map<number, { pid: number; epoch: string }>> {
  const rows = await db('ledger_partition_epochs').select<Array<{ partition: number; epoch: string; writer: string }>>(
    'partition',
    'epoch',
    'writer',
  );
  return new Map(rows.map((row) => [row.partition, { pid: Number(row.writer.split(':')[1]), epoch: String(row.epoch) }]));
}

/** A writer process on a port of its own, once it answers ready (its consumers are started by then). */
async function startWriter(env: NodeJS.ProcessEnv): Promise<{ process: ChildProcess; port: number }> {
  const port = await freePort();
  const writer = spawnLedger({ ...env, LEDGER_PORT: String(port) });
  await waitFor(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok === true ? true : undefined), {
    timeoutMs: 60_000,
    what: `the ledger writer on port ${port}`,
  });
  return { process: writer, port };
}

async function fencedBatches(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((each) => each.startsWith('ledger_batches_fenced_total'));
  return Number(line?.split(' ')[1] ?? 0);
}

describe('ledger partitions handed over between two writer processes', () => {
  it('moves the partitions of a killed writer, and of a frozen one, to the other; every command has one result', async () => {
    const databaseUrl = await createTestDatabase('ledger_handover', { migratedFor: 'ledger' });
    const amqpUrl = await createTestVhost('ledger_handover');
    const env = {
      ...process.env,
      LEDGER_DATABASE_URL: databaseUrl,
      AMQP_URL: amqpUrl,
      INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
      LOG_LEVEL: 'error',
      LEDGER_PARTITIONS: '4',
      LEDGER_AMQP_HEARTBEAT_SECONDS: '1',
      LEDGER_IDLE_IN_TRANSACTION_TIMEOUT_MS: '2000',
    };
    const db = createDb(databaseUrl, { poolMax: 2 });
    const client = await LedgerCommandClient.connect(amqpUrl, 'handover-test-publisher');
    const writers: ChildProcess[] = [];
    const sent: LedgerPostV1[] = [];
    const tenants = Array.from({ length: 6 }, () => newTenantId());
    let round = 0;
    /** A round of commands for every tenant, each answered. */
    const postRound = async (): Promise<void> => {
      round += 1;
      const commands = tenants.flatMap((tenantId) => [
        depositCommand({ tenantId }, `wl_a${round}`, '10.00'),
        transferCommand({ tenantId }, `wl_a${round}`, 'wl_b', '4.00'),
      ]);
      sent.push(...commands);
      const results = await Promise.all(commands.map((command) => client.request(command, { timeoutMs: 60_000 })));
      expect(results.every((result) => result.status === 'posted')).toBe(true);
    };
    try {
      const firstWriter = await startWriter(env);
      writers.push(firstWriter.process);
      const secondWriter = await startWriter(env);
      writers.push(secondWriter.process);
      const [first, second] = writers as [ChildProcess, ChildProcess];
      await postRound();
      const before = await holders(db);
      // The first to subscribe is every queue's active consumer.
      expect([...before.values()].every((holder) => holder.pid === first.pid)).toBe(true);

      first.kill('SIGSTOP');
      const frozenAt = Date.now();
      await postRound();
      const handedOverMs = Date.now() - frozenAt;
      const afterFreeze = await holders(db);
      for (const [partition, holder] of before) {
        expect(afterFreeze.get(partition)).toMatchObject({ pid: second.pid });
        expect(BigInt(afterFreeze.get(partition)?.epoch ?? 0)).toBeGreaterThan(BigInt(holder.epoch));
      }
      expect(handedOverMs).toBeLessThan(30_000);

      // Resumed, the stale writer finds its partitions fenced and its connection gone; it waits as a standby.
      first.kill('SIGCONT');
      await waitFor(async () => ((await fencedBatches(firstWriter.port).catch(() => -1)) >= 0 ? true : undefined), {
        timeoutMs: 60_000,
        what: 'the resumed writer to answer',
      });
      await postRound();
      expect([...(await holders(db)).values()].every((holder) => holder.pid === second.pid)).toBe(true);

      second.kill('SIGKILL');
      await postRound();
      expect([...(await holders(db)).values()].every((holder) => holder.pid === first.pid)).toBe(true);

      const recorded = await db('processed_commands').pluck('command_id');
      expect(recorded.sort()).toEqual(sent.map((command) => command.commandId).sort());
      const entries = await db('journal_entries').count<{ count: string }[]>('* as count');
      expect(Number(entries[0]?.count)).toBe(sent.length);
      expect(await ledgerInvariantViolations(db)).toEqual([]);
      const partitions = await db('ledger_tenant_partitions').pluck('partition');
      expect(partitions).toHaveLength(tenants.length);
      expect(
        partitions.every((partition) => ledgerPartitionQueue(partition).startsWith(TOPOLOGY.ledgerCommands.partitionQueuePrefix)),
      ).toBe(true);
    } finally {
      for (const writer of writers) {
        writer.kill('SIGCONT');
        writer.kill('SIGKILL');
      }
      await client.close();
      await db.destroy();
    }
  });
});
