import amqp from 'amqplib';
import { ledgerCommandRoutingKey, ledgerPartitionQueue, parseLedgerResults, TOPOLOGY, type LedgerResultV1 } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import {
  commandId,
  depositCommand,
  ledgerInvariantViolations,
  type LedgerHarness,
  newTenantId,
  startLedgerHarness,
  systemLine,
  transferCommand,
  walletBalance,
  walletLine,
} from './support';

describe('ledger.post.v1 over RabbitMQ', () => {
  let ledger: LedgerHarness;
  beforeAll(async () => {
    ledger = await startLedgerHarness();
  });
  afterAll(async () => {
    await ledger.close();
  });
  afterEach(async () => {
    expect(await ledgerInvariantViolations(ledger.db)).toEqual([]);
  });

  it('posts a balanced entry, updates balances and replies with the entry id', async () => {
    const tenantId = newTenantId();
    const result = await ledger.client.request(depositCommand({ tenantId }, 'wl_a', '100.10'));
    expect(result).toMatchObject({ status: 'posted', duplicate: false, error: null });
    expect(result.journalEntryId).toMatch(/^je_/);
    expect(await walletBalance(ledger.db, tenantId, 'wl_a')).toBe('100.1');
    const entry = await ledger.get(`/v1/journal/${result.journalEntryId}`, { tenantId });
    expect(entry.status).toBe(200);
    expect(entry.body.lines).toEqual([
      expect.objectContaining({ accountName: 'momo-float:mtn', direction: 'DR', amount: '100.10', currencyCode: 'USD' }),
      expect.objectContaining({ accountName: 'wallet:owner-wl_a', walletId: 'wl_a', direction: 'CR', amount: '100.10' }),
    ]);
  });

  it('answers a repeated command with its original result and posts nothing more', async () => {
    const tenantId = newTenantId();
    const command = depositCommand({ tenantId }, 'wl_a', '5.00');
    const first = await ledger.client.request(command);
    const again = await ledger.client.request({ ...command, correlationId: 'a-retry' });
    expect(again).toMatchObject({ status: 'posted', journalEntryId: first.journalEntryId, duplicate: true });
    expect(await walletBalance(ledger.db, tenantId, 'wl_a')).toBe('5');
    const entries = await ledger
      .db('journal_entries')
      .whereRaw('command_key = command_key(?)', [command.commandId])
      .count<{ count: string }[]>('* as count');
    expect(entries[0]?.count).toBe('1');
  });

  it('rejects the same commandId with a different payload and posts nothing', async () => {
    const tenantId = newTenantId();
    const command = depositCommand({ tenantId }, 'wl_a', '5.00');
    await ledger.client.request(command);
    const changed = await ledger.client.request({ ...command, lines: depositCommand({ tenantId }, 'wl_a', '500.00').lines });
    expect(changed).toMatchObject({ status: 'rejected', error: { code: 'COMMAND_ID_REUSED' } });
    expect(await walletBalance(ledger.db, tenantId, 'wl_a')).toBe('5');
  });

  it.each([
    [
      'UNBALANCED_ENTRY',
      (tenantId: string) => ({
        ...depositCommand({ tenantId }, 'wl_a', '10.00'),
        lines: [systemLine('momo-float:mtn', 'DR', '10.00'), walletLine('wl_a', 'CR', '9.99')],
      }),
    ],
    ['INVALID_AMOUNT', (tenantId: string) => depositCommand({ tenantId }, 'wl_a', '10.001')],
    [
      'CURRENCY_MISMATCH',
      (tenantId: string) => ({
        ...depositCommand({ tenantId }, 'wl_a', '10.00'),
        lines: [systemLine('asset:pool:UGX', 'DR', '10.00'), walletLine('wl_a', 'CR', '10.00')],
      }),
    ],
    ['INSUFFICIENT_FUNDS', (tenantId: string) => transferCommand({ tenantId }, 'wl_empty', 'wl_b', '0.01')],
  ])('rejects %s and changes nothing', async (code, build) => {
    const tenantId = newTenantId();
    const result = await ledger.client.request(build(tenantId));
    expect(result).toMatchObject({ status: 'rejected', journalEntryId: null, error: { code } });
    const lines = await ledger.db('journal_entries').where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count');
    expect(lines[0]?.count).toBe('0');
  });

  it('answers a structurally invalid command with VALIDATION_ERROR when it can tell whose it is', async () => {
    const tenantId = newTenantId();
    const result = await ledger.client.request({
      type: 'ledger.post.v1',
      commandId: commandId('bad'),
      tenantId,
      environment: 'test',
      kind: 'transfer',
      lines: [],
    });
    expect(result).toMatchObject({ status: 'rejected', error: { code: 'VALIDATION_ERROR' } });
  });

  it('blocks debits of a frozen wallet but keeps crediting it', async () => {
    const tenantId = newTenantId();
    await ledger.client.request(depositCommand({ tenantId }, 'wl_f', '50.00'));
    const freeze = {
      type: 'ledger.wallet-status.v1' as const,
      commandId: commandId('freeze'),
      tenantId,
      environment: 'test' as const,
      walletId: 'wl_f',
      accountName: 'wallet:owner-wl_f',
      currencyCode: 'USD',
      status: 'frozen' as const,
    };
    expect(await ledger.client.request(freeze)).toMatchObject({ status: 'applied' });
    expect(await ledger.client.request(transferCommand({ tenantId }, 'wl_f', 'wl_g', '1.00'))).toMatchObject({
      status: 'rejected',
      error: { code: 'WALLET_FROZEN' },
    });
    expect(await ledger.client.request(depositCommand({ tenantId }, 'wl_f', '1.00'))).toMatchObject({ status: 'posted' });
    await ledger.client.request({ ...freeze, commandId: commandId('unfreeze'), status: 'active' });
    expect(await ledger.client.request(transferCommand({ tenantId }, 'wl_f', 'wl_g', '1.00'))).toMatchObject({ status: 'posted' });
    expect(await walletBalance(ledger.db, tenantId, 'wl_f')).toBe('50');
  });

  it('never fails a batch neighbour: a burst mixing good and bad commands posts every good one', async () => {
    const tenantId = newTenantId();
    await ledger.client.request(depositCommand({ tenantId }, 'wl_src', '100.00'));
    const commands = Array.from({ length: 60 }, (_, index) =>
      index % 3 === 0
        ? transferCommand({ tenantId }, 'wl_src', 'wl_dst', '1000.00')
        : transferCommand({ tenantId }, 'wl_src', 'wl_dst', '1.00', { fee: '0.10' }),
    );
    const results = await Promise.all(commands.map((command) => ledger.client.request(command)));
    expect(results.filter((result) => result.status === 'posted')).toHaveLength(40);
    expect(results.filter((result) => result.error?.code === 'INSUFFICIENT_FUNDS')).toHaveLength(20);
    expect(await walletBalance(ledger.db, tenantId, 'wl_src')).toBe('56');
    expect(await walletBalance(ledger.db, tenantId, 'wl_dst')).toBe('40');
    const batches = await ledger
      .db('journal_entries')
      .where({ tenant_id: tenantId })
      .countDistinct<{ count: string }[]>('created_at as count');
    // Commands were posted in fewer transactions than there were commands.
    expect(Number(batches[0]?.count)).toBeLessThan(41);
  });

  it('decides every command of a ledger.commands.v1 message in order, answers each by its correlation id, and a redelivery posts nothing twice', async () => {
    const tenantId = newTenantId();
    await ledger.client.request(depositCommand({ tenantId }, 'wl_m', '10.00'));
    const commands = [
      transferCommand({ tenantId }, 'wl_m', 'wl_n', '6.00'),
      // Decided after the first: 4.00 is left, so this one is refused.
      transferCommand({ tenantId }, 'wl_m', 'wl_n', '6.00'),
      { type: 'ledger.post.v1', commandId: commandId('bad'), tenantId, environment: 'test', kind: 'transfer', lines: [] },
      transferCommand({ tenantId }, 'wl_m', 'wl_n', '4.00'),
    ];
    const results = await ledger.client.requestMany(commands);
    expect(results.map((result) => result.commandId)).toEqual(commands.map((command) => command.commandId));
    expect(results.map((result) => result.error?.code ?? result.status)).toEqual([
      'posted',
      'INSUFFICIENT_FUNDS',
      'VALIDATION_ERROR',
      'posted',
    ]);
    expect(await walletBalance(ledger.db, tenantId, 'wl_m')).toBe('0');
    expect(await walletBalance(ledger.db, tenantId, 'wl_n')).toBe('10');

    // The same message again (a redelivery after a crash before the ack): the recorded answers, nothing posted.
    const again = await ledger.client.requestMany(commands);
    expect(again.map((result) => [result.journalEntryId, result.duplicate])).toEqual(
      results.map((result) => [result.journalEntryId, true]),
    );
    expect(await walletBalance(ledger.db, tenantId, 'wl_n')).toBe('10');
    const entries = await ledger.db('journal_entries').where({ tenant_id: tenantId }).count<{ count: string }[]>('* as count');
    expect(entries[0]?.count).toBe('3');
  });

  it('dead-letters a ledger.commands.v1 message whole when one of its commands names no owner, and posts none of it', async () => {
    const tenantId = newTenantId();
    const good = depositCommand({ tenantId }, 'wl_whole', '1.00');
    const envelope = {
      type: 'ledger.commands.v1',
      commands: [
        { correlationId: null, command: good },
        { correlationId: null, command: { hello: 'world' } },
      ],
    };
    const connection = await amqp.connect(ledger.amqpUrl);
    const channel = await connection.createConfirmChannel();
    channel.publish(TOPOLOGY.ledgerCommands.exchange, ledgerCommandRoutingKey(tenantId), Buffer.from(JSON.stringify(envelope)), {
      persistent: true,
      type: 'ledger.commands.v1',
    });
    await channel.waitForConfirms();
    const parked = await waitFor(
      async () => {
        const message = await channel.get(TOPOLOGY.ledgerCommands.deadLetterQueue, { noAck: true });
        return message ? JSON.parse(message.content.toString()) : undefined;
      },
      { what: 'the dead-lettered message' },
    );
    expect(parked).toEqual(envelope);
    expect(await walletBalance(ledger.db, tenantId, 'wl_whole')).toBeNull();
    await connection.close();
  });

  it('publishes posted and rejected events through its outbox, and a repeat’s result again', async () => {
    const connection = await amqp.connect(ledger.amqpUrl);
    const channel = await connection.createChannel();
    const { queue } = await channel.assertQueue('', { exclusive: true });
    await channel.bindQueue(queue, TOPOLOGY.ledgerEvents.exchange, 'ledger.#');
    const events: Array<LedgerResultV1 & { routingKey: string }> = [];
    await channel.consume(
      queue,
      (message) => {
        if (!message || message.properties.type !== 'ledger.results.v1') return;
        for (const result of parseLedgerResults(JSON.parse(message.content.toString())) ?? [])
          events.push({ ...result, routingKey: message.fields.routingKey });
      },
      { noAck: true },
    );
    const tenantId = newTenantId();
    const posted = depositCommand({ tenantId }, 'wl_e', '1.00');
    const rejected = transferCommand({ tenantId }, 'wl_none', 'wl_e', '9.00');
    await ledger.client.request(posted);
    await ledger.client.request(rejected);
    // Events of earlier tests may still be arriving: wait for these two by command id.
    const ids = [posted.commandId, rejected.commandId];
    await waitFor(async () => (ids.every((id) => events.some((event) => event.commandId === id)) ? true : undefined), {
      what: 'ledger events',
    });
    // Routed by status and reference type, so each service is delivered only its own postings' results.
    expect(events.find((event) => event.commandId === posted.commandId)).toMatchObject({
      status: 'posted',
      routingKey: `ledger.posted.${posted.reference.type}`,
    });
    expect(events.find((event) => event.commandId === rejected.commandId)).toMatchObject({
      status: 'rejected',
      error: { code: 'INSUFFICIENT_FUNDS' },
      routingKey: `ledger.rejected.${rejected.reference.type}`,
    });
    // A repeat is answered from the record, and its result goes out again: a sender that lost the
    // first (restored to before it) finishes its record from it.
    const before = events.filter((event) => event.commandId === posted.commandId).length;
    expect(await ledger.client.request(posted)).toMatchObject({ status: 'posted', duplicate: true });
    await waitFor(async () => (events.filter((event) => event.commandId === posted.commandId).length > before ? true : undefined), {
      what: "the repeat's event",
    });
    await connection.close();
  });

  it('parks a command that keeps failing in the dead-letter queue after the delivery limit, without failing its neighbours', async () => {
    const tenantId = newTenantId();
    // PostgreSQL cannot store a NUL character: this command passes validation but fails every
    // time it is written, as a poison message would.
    const poison = depositCommand({ tenantId: `${tenantId}\u0000` }, 'wl_poison', '1.00');
    const neighbour = depositCommand({ tenantId }, 'wl_neighbour', '1.00');
    await ledger.client.send(poison);
    expect(await ledger.client.request(neighbour)).toMatchObject({ status: 'posted' });
    const connection = await amqp.connect(ledger.amqpUrl);
    const channel = await connection.createChannel();
    const parked = await waitFor(
      async () => {
        const message = await channel.get(TOPOLOGY.ledgerCommands.deadLetterQueue, { noAck: true });
        return message ? (JSON.parse(message.content.toString()) as { commandId: string }) : undefined;
      },
      { what: 'the poison command in the dead-letter queue', timeoutMs: 30_000 },
    );
    expect(parked.commandId).toBe(poison.commandId);
    // Its tenant cannot be placed (the database refuses the id), so partition 0 had it.
    expect((await channel.checkQueue(ledgerPartitionQueue(0))).messageCount).toBe(0);
    await connection.close();
  });

  it('posts the good neighbours of a poison command in one ledger.commands.v1 and parks the message after the delivery limit', async () => {
    const tenantId = newTenantId();
    const neighbour = depositCommand({ tenantId }, 'wl_env_neighbour', '2.00');
    const poison = depositCommand({ tenantId: `${tenantId}\u0000` }, 'wl_env_poison', '1.00');
    const connection = await amqp.connect(ledger.amqpUrl);
    const channel = await connection.createConfirmChannel();
    const envelope = {
      type: 'ledger.commands.v1',
      commands: [
        { correlationId: null, command: neighbour },
        { correlationId: null, command: poison },
      ],
    };
    channel.publish(TOPOLOGY.ledgerCommands.exchange, ledgerCommandRoutingKey(tenantId), Buffer.from(JSON.stringify(envelope)), {
      persistent: true,
      type: 'ledger.commands.v1',
    });
    await channel.waitForConfirms();
    const parked = await waitFor(
      async () => {
        const message = await channel.get(TOPOLOGY.ledgerCommands.deadLetterQueue, { noAck: true });
        return message ? (JSON.parse(message.content.toString()) as typeof envelope) : undefined;
      },
      { what: 'the message with the poison command in the dead-letter queue', timeoutMs: 30_000 },
    );
    expect(parked.commands.map((item) => item.command.commandId)).toEqual([neighbour.commandId, poison.commandId]);
    // Posted once however often the message came back.
    expect(await walletBalance(ledger.db, tenantId, 'wl_env_neighbour')).toBe('2');
    await connection.close();
  });

  it('dead-letters a message it cannot read at all', async () => {
    await ledger.client.send({ hello: 'world' });
    const connection = await amqp.connect(ledger.amqpUrl);
    const channel = await connection.createChannel();
    const parked = await waitFor(
      async () => {
        const message = await channel.get(TOPOLOGY.ledgerCommands.deadLetterQueue, { noAck: true });
        return message ? JSON.parse(message.content.toString()) : undefined;
      },
      { what: 'the dead-lettered message' },
    );
    expect(parked).toEqual({ hello: 'world' });
    await connection.close();
  });
});
