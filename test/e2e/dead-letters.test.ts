import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { DEAD_LETTER_QUEUES, type DeadLetterSummary, ledgerCommandRoutingKey, ledgerPartitionQueue, TOPOLOGY } from '@wallet/contracts';
import { createDb, type Db } from '@wallet/kit';
import { LedgerCommandClient } from '@wallet/money-commands';
import { waitFor } from '@wallet/kit/testing';
import { isWalletApiError, WalletClient } from '@wallet/sdk';
import { runOps } from '../../scripts/lib/ops-commands';
import { PAYMENTS_TOPOLOGY } from '../../services/payments/src/topology';
import { TREASURY_TOPOLOGY } from '../../services/treasury/src/topology';
import { type SecuritySystem, startSecuritySystem, SYSTEM_KEY } from '../security/in-process-system';

/**
 * Dead letters end to end, all five services real: a transfer whose posting fails in the
 * ledger's database is requeued until the command queue's delivery limit parks it in
 * ledger.commands.dlq. The operator sees it (`npm run ops -- dlq list`, the endpoint, the
 * queue's depth, the ledger's gauge), fixes the cause and replays it: the transfer posts once.
 * A second replay is a 404, and the same command sent again is answered from the ledger's
 * record of it. A discard removes an unreadable command. Replays and discards are audited.
 */
const DLQ = TOPOLOGY.ledgerCommands.deadLetterQueue;

let system: SecuritySystem;
let admin: WalletClient;
let ledgerDb: Db;
let connection: amqp.ChannelModel;
let ledger: LedgerCommandClient;
let tenantId: string;
let tenant: WalletClient;
let payer: { id: string };
let payee: { id: string };

beforeAll(async () => {
  system = await startSecuritySystem('dead_letters', {
    GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_IP_PER_SECOND: '0',
    PAYMENTS_TRANSFER_REPLY_TIMEOUT_MS: '300',
  });
  admin = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY }, maxRetries: 0 });
  ledgerDb = createDb(system.env.LEDGER_DATABASE_URL as string, { poolMax: 2 });
  connection = await amqp.connect(system.env.AMQP_URL as string);
  ledger = await LedgerCommandClient.connect(system.env.AMQP_URL as string, 'dead-letter-tests');

  const slug = `dl-${randomUUID().slice(0, 8)}`;
  tenantId = (
    await admin.system.organizations.create({
      name: slug,
      slug,
      config: { defaultCurrency: 'KES', allowedCurrencies: ['KES'], maxTransactionAmount: '100000' },
    })
  ).id;
  const key = await admin.apiKeys.createForTenant(tenantId, { name: 'ops', scopes: ['tenant:manage'], environment: 'live' });
  tenant = new WalletClient({ baseUrl: system.publicUrl, auth: { type: 'secret', apiKey: key.key as string }, maxRetries: 0 });
  payer = await waitFor(() => tenant.wallets.create({ ownerType: 'user', ownerId: 'payer', currencyCode: 'KES' }).catch(() => undefined), {
    what: 'the tenant to reach payments',
  });
  payee = await tenant.wallets.create({ ownerType: 'user', ownerId: 'payee', currencyCode: 'KES' });
  const funded = await ledger.request({
    type: 'ledger.post.v1',
    commandId: `dl-fund-${randomUUID()}`,
    tenantId,
    environment: 'live',
    kind: 'momo_deposit',
    reference: { type: 'deposit', id: `dep_${randomUUID().slice(0, 8)}` },
    lines: [
      { accountName: 'momo-float:mtn', direction: 'DR', amount: '100.00', currencyCode: 'KES' },
      { accountName: 'wallet:payer', walletId: payer.id, direction: 'CR', amount: '100.00', currencyCode: 'KES' },
    ],
  });
  expect(funded.status).toBe('posted');
});

afterAll(async () => {
  await ledger?.close();
  await connection?.close();
  await ledgerDb?.destroy();
  await system?.close();
});

/** The queue of the tenant's ledger partition, as the ledger placed it. */
async function tenantPartitionQueue(): Promise<string> {
  const placed = await ledgerDb('ledger_tenant_partitions').where({ tenant_id: tenantId }).first<{ partition: number }>('partition');
  if (!placed) throw new Error('the tenant has no ledger partition');
  return ledgerPartitionQueue(placed.partition);
}

/** Until it is dropped, the ledger's database refuses this tenant's transfers: their commands fail on every delivery. */
async function refuseTransfers(): Promise<void> {
  await ledgerDb.raw(
    `CREATE OR REPLACE FUNCTION refuse_test_transfers() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'transfers refused by the test'; END $$`,
  );
  await ledgerDb.raw(
    `CREATE TRIGGER refuse_test_transfers BEFORE INSERT ON journal_entries FOR EACH ROW WHEN (NEW.tenant_id = '${tenantId}' AND NEW.reference_type = 'transfer') EXECUTE FUNCTION refuse_test_transfers()`,
  );
}

async function acceptTransfers(): Promise<void> {
  await ledgerDb.raw('DROP TRIGGER refuse_test_transfers ON journal_entries');
}

async function parked(): Promise<number> {
  const channel = await connection.createChannel();
  try {
    return (await channel.checkQueue(DLQ)).messageCount;
  } finally {
    await channel.close();
  }
}

/** The dead-letter queue's depth as the ledger's /metrics serves it (what the DeadLetterQueueNotEmpty alert reads). */
async function ledgerGauge(): Promise<number> {
  const text = await (await fetch(`${system.env.LEDGER_URL}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (each) => each.startsWith('rabbitmq_queue_messages_ready{') && each.includes(`queue="${DLQ}"`) && each.includes('dead_letter="true"'),
    );
  if (line === undefined) throw new Error(`no rabbitmq_queue_messages_ready for ${DLQ} on the ledger /metrics`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * A listing reads the queue's messages and gives them back by closing its channel; the broker
 * requeues them a moment later, so a depth read right after may still miss them for a while.
 */
async function expectDepth(read: () => Promise<number>, expected: number): Promise<void> {
  let last = -1;
  await waitFor(
    async () => {
      last = await read();
      return last === expected ? true : undefined;
    },
    { timeoutMs: 10_000, intervalMs: 100, what: `a dead-letter depth of ${expected}` },
  ).catch(() => undefined);
  expect(last).toBe(expected);
}

async function entriesOf(referenceId: string): Promise<number> {
  return (await admin.system.transactions.list({ referenceId })).data.length;
}

async function balances(): Promise<string[]> {
  return [(await tenant.wallets.get(payer.id)).balance, (await tenant.wallets.get(payee.id)).balance];
}

async function ops(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runOps(argv, {
    client: () => admin,
    backups: () => {
      throw new Error('the dead-letter commands need no backups');
    },
    out: (line) => (out += `${line}\n`),
    err: (line) => (err += `${line}\n`),
  });
  return { code, out, err };
}

async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'OK';
  } catch (error) {
    if (isWalletApiError(error)) return `${error.status} ${error.code}`;
    throw error;
  }
}

/** Sends a transfer the ledger refuses and waits for its command to be parked. */
async function deadLetteredTransfer(amount: string): Promise<{ transferId: string; deadLetter: DeadLetterSummary }> {
  const before = await parked();
  const transfer = await tenant.transfers.create({ fromWalletId: payer.id, toWalletId: payee.id, amount, currencyCode: 'KES' });
  expect(transfer.status).toBe('pending');
  await waitFor(async () => ((await parked()) > before ? true : undefined), {
    timeoutMs: 60_000,
    what: 'the transfer command in the dead-letter queue',
  });
  const listed = await admin.system.deadLetters.list({ queue: DLQ });
  const deadLetter = await findTransfer(listed.data, transfer.id);
  return { transferId: transfer.id, deadLetter };
}

async function findTransfer(summaries: DeadLetterSummary[], transferId: string): Promise<DeadLetterSummary> {
  for (const summary of summaries) {
    const shown = await admin.system.deadLetters.get(summary.id);
    if ((shown.body as { reference?: { id?: string } }).reference?.id === transferId) return summary;
  }
  throw new Error(`transfer ${transferId} is not among the dead letters`);
}

async function auditOf(deadLetterId: string): Promise<Array<Record<string, unknown>>> {
  return system
    .identityDb('audit_events')
    .where({ target_id: deadLetterId })
    .orderBy('seq')
    .select('tenant_id', 'environment', 'action', 'actor_type', 'actor_id', 'target_type', 'metadata');
}

describe('dead letters', () => {
  it('names every service queue that dead-letters', () => {
    const declared = [
      PAYMENTS_TOPOLOGY.identityEvents,
      PAYMENTS_TOPOLOGY.ledgerEvents,
      TREASURY_TOPOLOGY.identityEvents,
      TREASURY_TOPOLOGY.ledgerEvents,
      TREASURY_TOPOLOGY.analytics,
    ].map((queue) => queue.deadLetterQueue);
    expect(DEAD_LETTER_QUEUES).toEqual(
      expect.arrayContaining([TOPOLOGY.ledgerCommands.deadLetterQueue, TOPOLOGY.auditRecords.deadLetterQueue, ...declared]),
    );
  });

  it('shows a command the ledger keeps failing, replays it once the cause is fixed, and posts it exactly once', async () => {
    await refuseTransfers();
    const { transferId, deadLetter } = await deadLetteredTransfer('40.00');
    const other = await deadLetteredTransfer('15.00');
    expect(deadLetter).toMatchObject({
      queue: DLQ,
      originalQueue: await tenantPartitionQueue(),
      reason: 'delivery_limit',
      type: 'ledger.post.v1',
    });
    expect(deadLetter.id).toMatch(/^dl_[0-9a-f]{32}$/);

    // Seen in the broker's depth, the ledger's gauge and `dlq list`, under the same id every time.
    await expectDepth(parked, 2);
    await expectDepth(ledgerGauge, 2);
    const listed = await ops('dlq', 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(deadLetter.id);
    expect(listed.out).toMatch(/ledger\.commands\.dlq\s+2 parked/);
    expect((await admin.system.deadLetters.list()).data.map((each) => each.id)).toEqual(
      expect.arrayContaining([deadLetter.id, other.deadLetter.id]),
    );

    const shown = await admin.system.deadLetters.get(deadLetter.id);
    expect(shown.deaths[0]).toMatchObject({
      queue: await tenantPartitionQueue(),
      exchange: TOPOLOGY.ledgerCommands.exchange,
      routingKeys: [ledgerCommandRoutingKey(tenantId)],
      reason: 'delivery_limit',
    });
    expect(shown.bodyEncoding).toBe('json');
    expect(Object.keys(shown.headers).filter((name) => name.startsWith('x-death') || name === 'x-delivery-count')).toEqual([]);
    expect(await entriesOf(transferId)).toBe(0);
    expect((await tenant.transfers.get(transferId)).status).toBe('pending');
    expect(await balances()).toEqual(['100.00', '0.00']);

    await acceptTransfers();
    const replayed = await ops('dlq', 'replay', deadLetter.id);
    expect(replayed).toMatchObject({ code: 0, err: '' });
    expect(replayed.out).toContain(`replayed ${deadLetter.id}`);
    await waitFor(async () => ((await tenant.transfers.get(transferId)).status === 'completed' ? true : undefined), {
      what: 'the replayed transfer to complete',
    });
    expect(await entriesOf(transferId)).toBe(1);
    expect(await balances()).toEqual(['60.00', '40.00']);
    await expectDepth(parked, 1);
    await expectDepth(ledgerGauge, 1);

    // Again: the dead letter is gone, and nothing changes.
    expect(await outcome(() => admin.system.deadLetters.replay(deadLetter.id))).toBe('404 DEAD_LETTER_NOT_FOUND');
    const again = await ops('dlq', 'replay', deadLetter.id);
    expect(again).toMatchObject({ code: 1, err: expect.stringContaining('404 DEAD_LETTER_NOT_FOUND') });
    // The same command sent once more is answered from the ledger's record of it.
    const resent = await ledger.request(shown.body as Record<string, unknown>);
    expect(resent).toMatchObject({ status: 'posted', duplicate: true });
    expect(await entriesOf(transferId)).toBe(1);
    expect(await balances()).toEqual(['60.00', '40.00']);

    // The rest with --all: the other transfer posts once too.
    const all = await ops('dlq', 'replay', '--all', '--queue', DLQ);
    expect(all.out).toContain('replayed 1');
    expect(all.out).toContain(other.deadLetter.id);
    await waitFor(async () => ((await tenant.transfers.get(other.transferId)).status === 'completed' ? true : undefined), {
      what: 'the second transfer to complete',
    });
    expect(await entriesOf(other.transferId)).toBe(1);
    expect(await balances()).toEqual(['45.00', '55.00']);
    await expectDepth(parked, 0);
    expect((await ops('dlq', 'replay', '--all')).out).toContain('replayed 0');

    for (const id of [deadLetter.id, other.deadLetter.id]) {
      expect(await auditOf(id)).toEqual([
        {
          tenant_id: null,
          environment: null,
          action: 'dead_letter.replayed',
          actor_type: 'system',
          actor_id: 'system',
          target_type: 'dead_letter',
          metadata: expect.objectContaining({
            queue: DLQ,
            originalQueue: await tenantPartitionQueue(),
            reason: 'delivery_limit',
            type: 'ledger.post.v1',
          }),
        },
      ]);
    }
    // A platform record: no tenant sees it.
    expect((await tenant.auditEvents.list({ action: 'dead_letter.replayed' })).data).toEqual([]);
  });

  it('discards an unreadable command without delivering it, once, audited', async () => {
    const messageId = `dl-garbage-${randomUUID()}`;
    const channel = await connection.createConfirmChannel();
    // Naming no tenant, it is placed on partition 0, whose writer refuses it.
    channel.publish(TOPOLOGY.ledgerCommands.exchange, ledgerCommandRoutingKey(''), Buffer.from('not a command'), {
      persistent: true,
      messageId,
      type: 'ledger.post.v1',
    });
    await channel.waitForConfirms();
    await channel.close();
    const garbage = await waitFor(
      async () => (await admin.system.deadLetters.list({ queue: DLQ })).data.find((each) => each.messageId === messageId),
      { what: 'the unreadable command among the dead letters' },
    );
    expect(garbage).toMatchObject({ originalQueue: ledgerPartitionQueue(0), reason: 'rejected' });
    expect(await admin.system.deadLetters.get(garbage.id)).toMatchObject({ bodyEncoding: 'text', body: 'not a command' });
    const depth = await parked();

    const discarded = await ops('dlq', 'discard', garbage.id);
    expect(discarded).toMatchObject({ code: 0, out: `discarded ${garbage.id} from ${DLQ}\n` });
    await expectDepth(parked, depth - 1);
    expect((await admin.system.deadLetters.list({ queue: DLQ })).data.map((each) => each.id)).not.toContain(garbage.id);
    expect(await outcome(() => admin.system.deadLetters.discard(garbage.id))).toBe('404 DEAD_LETTER_NOT_FOUND');
    expect(await outcome(() => admin.system.deadLetters.get(garbage.id))).toBe('404 DEAD_LETTER_NOT_FOUND');
    expect(await auditOf(garbage.id)).toEqual([
      expect.objectContaining({
        tenant_id: null,
        action: 'dead_letter.discarded',
        actor_type: 'system',
        target_type: 'dead_letter',
        metadata: expect.objectContaining({ queue: DLQ, messageId, reason: 'rejected' }),
      }),
    ]);
  });

  it('refuses bad input with a 4xx and changes nothing', async () => {
    const records = async () =>
      Number(
        (await system.identityDb('audit_events').where({ target_type: 'dead_letter' }).count<Array<{ count: string }>>('* as count'))[0]
          ?.count,
      );
    const before = { records: await records(), parked: await parked() };
    expect(await outcome(() => admin.request({ method: 'GET', path: '/v1/system/dead-letters?queue=ledger.commands' }))).toBe(
      '400 VALIDATION_ERROR',
    );
    expect(await outcome(() => admin.request({ method: 'POST', path: '/v1/system/dead-letters/replay', body: { limit: 0 } }))).toBe(
      '400 VALIDATION_ERROR',
    );
    expect(await outcome(() => admin.request({ method: 'GET', path: '/v1/system/dead-letters/tx_123' }))).toBe('404 NOT_FOUND');
    expect(await outcome(() => tenant.request({ method: 'GET', path: '/v1/system/dead-letters' }))).toBe('401 MISSING_CREDENTIALS');
    expect(await outcome(() => admin.system.deadLetters.discard('dl_0123456789abcdef0123456789abcdef'))).toBe('404 DEAD_LETTER_NOT_FOUND');
    expect(await ops('dlq', 'replay')).toMatchObject({ code: 2 });
    expect({ records: await records(), parked: await parked() }).toEqual(before);
  });
});
