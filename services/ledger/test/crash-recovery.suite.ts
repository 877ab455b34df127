import amqp from 'amqplib';
import { ledgerEntriesPostedV1Schema, parseLedgerResults, TOPOLOGY } from '@wallet/contracts';
import { createDb, type Db } from '@wallet/kit';
import { LedgerCommandClient } from '@wallet/money-commands';
import { createTestDatabase, createTestVhost, waitFor } from '@wallet/kit/testing';
import { depositCommand, INTERNAL_SECRET, ledgerInvariantViolations, newTenantId, spawnLedger, transferCommand } from './support';

async function count(db: Db, table: string): Promise<number> {
  const rows = await db(table).count<{ count: string }[]>('* as count');
  return Number(rows[0]?.count);
}

async function consumers(amqpUrl: string): Promise<number> {
  const connection = await amqp.connect(amqpUrl);
  // checkQueue on a queue not declared yet closes the channel with an error event.
  connection.on('error', () => undefined);
  try {
    const channel = await connection.createChannel();
    return (await channel.checkQueue(TOPOLOGY.ledgerCommands.unplacedQueue)).consumerCount;
  } catch {
    return 0;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

describe('ledger killed with SIGKILL in the middle of a stream of commands', () => {
  it('gives every command exactly one result after restart: nothing lost, nothing doubled', async () => {
    const databaseUrl = await createTestDatabase('ledger_crash', { migratedFor: 'ledger' });
    const amqpUrl = await createTestVhost('ledger_crash');
    const env = {
      ...process.env,
      LEDGER_DATABASE_URL: databaseUrl,
      AMQP_URL: amqpUrl,
      LEDGER_PORT: '0',
      INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
      LOG_LEVEL: 'error',
      LEDGER_BATCH_SIZE_MAX: '50',
    };
    const db = createDb(databaseUrl, { poolMax: 2 });
    // Every event the ledger publishes, from before it first starts until the end.
    const events = await amqp.connect(amqpUrl);
    const eventChannel = await events.createChannel();
    await eventChannel.assertExchange(TOPOLOGY.ledgerEvents.exchange, 'topic', { durable: true });
    const { queue: eventQueue } = await eventChannel.assertQueue('', { exclusive: true });
    await eventChannel.bindQueue(eventQueue, TOPOLOGY.ledgerEvents.exchange, 'ledger.#');
    const eventIds = new Set<string>();
    const postedEntryIds = new Set<string>();
    await eventChannel.consume(
      eventQueue,
      (message) => {
        if (!message) return;
        if (message.properties.type === 'ledger.entries-posted.v1') {
          for (const entry of ledgerEntriesPostedV1Schema.parse(JSON.parse(message.content.toString('utf8'))).entries)
            postedEntryIds.add(entry.journalEntryId);
        } else {
          for (const result of parseLedgerResults(JSON.parse(message.content.toString('utf8'))) ?? []) eventIds.add(result.commandId);
        }
      },
      { noAck: true },
    );
    let ledger = spawnLedger(env);
    const client = await LedgerCommandClient.connect(amqpUrl, 'crash-test-publisher');
    try {
      await waitFor(async () => ((await consumers(amqpUrl)) > 0 ? true : undefined), { timeoutMs: 60_000, what: 'the ledger to consume' });
      const tenantId = newTenantId();
      const wallets = Array.from({ length: 20 }, (_, index) => `wl_c${index}`);
      const commands = [
        ...wallets.map((wallet) => depositCommand({ tenantId }, wallet, '100.00')),
        ...Array.from({ length: 3000 }, (_, index) =>
          transferCommand({ tenantId }, wallets[index % 20] as string, wallets[(index * 7 + 1) % 20] as string, `${(index % 9) + 1}.25`, {
            fee: '0.10',
          }),
        ),
      ];
      const publishing = (async () => {
        for (let index = 0; index < commands.length; index += 100) {
          await Promise.all(commands.slice(index, index + 100).map((command) => client.send(command)));
        }
      })();

      await waitFor(async () => ((await count(db, 'processed_commands')) >= 500 ? true : undefined), {
        timeoutMs: 60_000,
        what: 'some commands to be processed',
      });
      ledger.kill('SIGKILL');
      await new Promise((resolve) => ledger.once('exit', resolve));
      const atCrash = await count(db, 'processed_commands');
      expect(atCrash).toBeLessThan(commands.length);

      await publishing;
      ledger = spawnLedger(env);
      await waitFor(async () => ((await count(db, 'processed_commands')) === commands.length ? true : undefined), {
        timeoutMs: 120_000,
        what: 'the queue to drain',
      });

      const posted = await db('processed_commands').whereRaw("result->>'status' = 'posted'").count<{ count: string }[]>('* as count');
      expect(await count(db, 'journal_entries')).toBe(Number(posted[0]?.count));
      const commandIds = new Set(commands.map((command) => command.commandId));
      const recorded = await db('processed_commands').pluck('command_id');
      expect(new Set(recorded)).toEqual(commandIds);
      // Every result was published (at least once; the message id lets consumers drop repeats).
      await waitFor(async () => (eventIds.size === commands.length ? true : undefined), {
        timeoutMs: 60_000,
        what: 'an event per command',
      });
      expect(eventIds).toEqual(new Set(commands.map((command) => command.commandId)));
      // Every committed entry went out in an entries-posted event, however the crash cut the batches.
      const entryIds = new Set<string>(await db('journal_entries').pluck('id'));
      await waitFor(async () => (postedEntryIds.size === entryIds.size ? true : undefined), {
        timeoutMs: 60_000,
        what: 'an entries-posted event per entry',
      });
      expect(postedEntryIds).toEqual(entryIds);
      expect(await ledgerInvariantViolations(db)).toEqual([]);
    } finally {
      ledger.kill('SIGKILL');
      await client.close();
      await events.close();
      await db.destroy();
    }
  });
});
