import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { reconciliationResultSchema, TOPOLOGY, walletSchema } from '@wallet/contracts';
import { startTcpProxy, type TcpProxy, testServerUrls, waitFor } from '@wallet/kit/testing';
import { TREASURY_TOPOLOGY } from '../../treasury/src/topology';
import { PAYMENTS_TOPOLOGY } from '../src/topology';
import {
  depositCommand,
  type HttpResult,
  type LedgerBackedHarness,
  newTenantId,
  startLedgerBackedHarness,
  tenantToken,
  type WalletRef,
} from './support';

/**
 * Real PostgreSQL and RabbitMQ, with payments, the ledger and treasury in-process. The services
 * reach PostgreSQL through proxies the test cuts (payments and treasury through one, the ledger
 * through another), never by touching the server other test runs share.
 */
let serviceDatabases: TcpProxy;
let ledgerDatabase: TcpProxy;
let harness: LedgerBackedHarness;

beforeAll(async () => {
  const { databaseUrl } = testServerUrls();
  serviceDatabases = await startTcpProxy(databaseUrl);
  ledgerDatabase = await startTcpProxy(databaseUrl);
  harness = await startLedgerBackedHarness(
    { PAYMENTS_TRANSFER_REPLY_TIMEOUT_MS: '1000', PAYMENTS_LEDGER_READ_TIMEOUT_MS: '2000', PAYMENTS_LEDGER_REPLY_TIMEOUT_MS: '2000' },
    { treasury: true, databaseProxies: { payments: serviceDatabases, treasury: serviceDatabases, ledger: ledgerDatabase } },
  );
});

afterEach(async () => {
  await serviceDatabases.reopen();
  await ledgerDatabase.reopen();
});

afterAll(async () => {
  await harness?.close();
  await serviceDatabases?.close();
  await ledgerDatabase?.close();
});

interface Caller {
  tenantId: string;
  environment: 'live';
}

interface Answer {
  what: 'transfer' | 'create wallet' | 'read wallet';
  status: number;
  code: unknown;
  retryAfter: string | null;
  at: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function call(caller: Caller, method: string, path: string, options: { body?: unknown; key?: string } = {}): Promise<HttpResult> {
  return harness.request(method, path, {
    token: tenantToken(caller.tenantId, { scopes: ['tenant:manage', 'analytics:read'] }),
    headers: options.key ? { 'Idempotency-Key': options.key } : {},
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

function answerOf(what: Answer['what'], result: HttpResult): Answer {
  return { what, status: result.status, code: result.body?.error?.code, retryAfter: result.headers.get('retry-after'), at: Date.now() };
}

async function newCaller(): Promise<Caller> {
  const tenantId = newTenantId();
  await harness.publishTenant(tenantId, { allowedCurrencies: ['USD'] });
  return { tenantId, environment: 'live' };
}

async function fundedWallets(caller: Caller, count: number): Promise<WalletRef[]> {
  const wallets: WalletRef[] = [];
  for (let index = 0; index < count; index += 1) {
    const created = await call(caller, 'POST', '/v1/wallets', {
      body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' },
    });
    expect(created.status).toBe(201);
    const wallet = walletSchema.parse(created.body);
    // Money in under a reference type payments keeps no records of, so reconciliation expects none.
    const funding = { ...depositCommand(wallet, '1000.00'), reference: { type: 'outage-funding', id: `fund_${randomUUID().slice(0, 8)}` } };
    expect((await harness.ledger.commands.request(funding)).status).toBe('posted');
    wallets.push(wallet);
  }
  return wallets;
}

/** Transfers of 1.00 between the wallets, wallet creations and reads, until `stop()`; every transfer sent is kept by its key. */
function requestStream(caller: Caller, wallets: WalletRef[], workers: number) {
  const answers: Answer[] = [];
  const transfers = new Map<string, Record<string, unknown>>();
  let stopped = false;
  const worker = async (offset: number) => {
    for (let turn = offset; !stopped; turn += 1) {
      const from = wallets[turn % wallets.length] as WalletRef;
      const to = wallets[(turn + 1) % wallets.length] as WalletRef;
      if (turn % 3 === 0) {
        const key = `idem-${randomUUID()}`;
        const body = { fromWalletId: from.id, toWalletId: to.id, amount: '1.00', currencyCode: 'USD' };
        transfers.set(key, body);
        answers.push(answerOf('transfer', await call(caller, 'POST', '/v1/transfers', { body, key })));
      } else if (turn % 3 === 1) {
        answers.push(
          answerOf(
            'create wallet',
            await call(caller, 'POST', '/v1/wallets', {
              body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' },
            }),
          ),
        );
      } else {
        answers.push(answerOf('read wallet', await call(caller, 'GET', `/v1/wallets/${from.id}`)));
      }
      await pause(20);
    }
  };
  const running = Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));
  return {
    answers,
    transfers,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** A success, or 503 SERVICE_UNAVAILABLE saying when to retry: what a client may get while a database is away. */
function isSuccessOrUnavailable(answer: Answer): boolean {
  if (answer.status >= 200 && answer.status < 300) return true;
  return answer.status === 503 && answer.code === 'SERVICE_UNAVAILABLE' && /^[1-9][0-9]*$/.test(answer.retryAfter ?? '');
}

async function pendingTransfers(caller: Caller): Promise<number> {
  const [row] = await harness
    .db('transfers')
    .where({ tenant_id: caller.tenantId, status: 'pending' })
    .count<Array<{ count: string }>>('* as count');
  return Number(row?.count);
}

async function reconciliationStatus(caller: Caller): Promise<string> {
  const answer = await call(caller, 'GET', '/v1/admin/reconciliation');
  expect(answer.status).toBe(200);
  return reconciliationResultSchema.parse(answer.body).status;
}

const DEAD_LETTER_QUEUES = [
  TOPOLOGY.ledgerCommands.deadLetterQueue,
  TOPOLOGY.auditRecords.deadLetterQueue,
  PAYMENTS_TOPOLOGY.identityEvents.deadLetterQueue,
  PAYMENTS_TOPOLOGY.ledgerEvents.deadLetterQueue,
  TREASURY_TOPOLOGY.ledgerEvents.deadLetterQueue,
  TREASURY_TOPOLOGY.analytics.deadLetterQueue,
];

async function deadLetterDepths(): Promise<Record<string, number>> {
  const connection = await amqp.connect(harness.env.AMQP_URL as string);
  try {
    const channel = await connection.createChannel();
    const depths: Record<string, number> = {};
    // Every one of them is declared by the services running: one missing fails the check.
    for (const queue of DEAD_LETTER_QUEUES) depths[queue] = (await channel.checkQueue(queue)).messageCount;
    return depths;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

describe('a database outage under load', () => {
  it("payments' database cut while requests arrive: every answer is a success or 503 with Retry-After, and it serves again without a restart", async () => {
    const caller = await newCaller();
    const wallets = await fundedWallets(caller, 3);
    const stream = requestStream(caller, wallets, 3);
    await waitFor(async () => (stream.answers.length >= 9 ? true : undefined), { what: 'the stream under way' });
    await serviceDatabases.cut('refuse');
    await pause(1_500);
    await serviceDatabases.cut('starting-up');
    await pause(1_500);
    await serviceDatabases.reopen();
    const reopenedAt = Date.now();
    await waitFor(
      async () => {
        const after = stream.answers.filter((answer) => answer.at > reopenedAt && answer.status < 300);
        return ['transfer', 'create wallet', 'read wallet'].every((what) => after.some((answer) => answer.what === what))
          ? true
          : undefined;
      },
      { what: 'every kind of request served again after the database came back', timeoutMs: 30_000 },
    );
    await stream.stop();

    expect(stream.answers.filter((answer) => !isSuccessOrUnavailable(answer))).toEqual([]);
    expect(stream.answers.filter((answer) => answer.status === 503).length).toBeGreaterThan(0);
    // A transfer answered 503 is retried with its key: it takes effect once, or had not at all.
    for (const [key, body] of stream.transfers) {
      const replayed = await call(caller, 'POST', '/v1/transfers', { body, key });
      expect([201, 202]).toContain(replayed.status);
    }
    await waitFor(async () => ((await pendingTransfers(caller)) === 0 ? true : undefined), {
      what: 'no transfer left pending',
      timeoutMs: 30_000,
    });
    const [completed] = await harness
      .db('transfers')
      .where({ tenant_id: caller.tenantId, status: 'completed' })
      .count<Array<{ count: string }>>('* as count');
    expect(Number(completed?.count)).toBe(stream.transfers.size);
    expect(await reconciliationStatus(caller)).toBe('ok');
  });

  it('the databases cut for 10 s under a stream of ledger commands and events: nothing dead-lettered, every read model equals its source, nothing left pending', async () => {
    const caller = await newCaller();
    const wallets = await fundedWallets(caller, 4);
    const stream = requestStream(caller, wallets, 2);
    // Deposits sent straight to the ledger all along: its commands queue up while its database
    // is away, and their events reach payments and treasury while theirs is.
    const deposits: string[] = [];
    let depositing = true;
    const depositor = (async () => {
      for (let turn = 0; depositing; turn += 1) {
        const command = depositCommand(wallets[turn % wallets.length] as WalletRef, '2.00');
        deposits.push(command.commandId);
        await harness.ledger.commands.send(command);
        await pause(40);
      }
    })();
    await waitFor(async () => (stream.answers.length >= 6 && deposits.length >= 10 ? true : undefined), { what: 'the stream under way' });

    await serviceDatabases.cut('refuse');
    await pause(3_000);
    await ledgerDatabase.cut('refuse');
    await pause(3_000);
    await ledgerDatabase.cut('starting-up');
    await pause(1_500);
    await ledgerDatabase.reopen();
    await pause(2_500);
    await serviceDatabases.reopen();
    const reopenedAt = Date.now();
    await waitFor(
      async () =>
        stream.answers.some((answer) => answer.at > reopenedAt && answer.what === 'transfer' && answer.status < 300) ? true : undefined,
      {
        what: 'a transfer served after the outage',
        timeoutMs: 30_000,
      },
    );
    depositing = false;
    await depositor;
    await stream.stop();
    expect(stream.answers.filter((answer) => !isSuccessOrUnavailable(answer))).toEqual([]);

    await waitFor(
      async () => {
        const [posted] = await harness.ledger
          .db('processed_commands')
          .whereIn('command_id', deposits)
          .count<Array<{ count: string }>>('* as count');
        return Number(posted?.count) === deposits.length ? true : undefined;
      },
      { what: `all ${deposits.length} deposits posted`, timeoutMs: 30_000 },
    );
    await waitFor(async () => ((await pendingTransfers(caller)) === 0 ? true : undefined), {
      what: 'no transfer left pending',
      timeoutMs: 30_000,
    });
    const journalCount = async () =>
      Number(
        (await harness.ledger.db('journal_entries').where({ tenant_id: caller.tenantId }).count<Array<{ count: string }>>('* as count'))[0]
          ?.count,
      );
    const treasuryDb = harness.treasury?.db;
    if (!treasuryDb) throw new Error('the harness runs treasury');
    const analytics = async () => {
      const [entries] = await treasuryDb('analytics_entries')
        .where({ tenant_id: caller.tenantId })
        .count<Array<{ count: string }>>('* as count');
      const [daily] = await treasuryDb('analytics_daily')
        .where({ tenant_id: caller.tenantId })
        .sum<Array<{ sum: string | null }>>('entry_count as sum');
      return { entries: Number(entries?.count), daily: Number(daily?.sum ?? 0) };
    };
    const expected = await journalCount();
    await waitFor(
      async () => {
        const counted = await analytics();
        return counted.entries === expected && counted.daily === expected ? true : undefined;
      },
      { what: `treasury's analytics to count the journal's ${expected} entries`, timeoutMs: 30_000 },
    );
    expect(await deadLetterDepths()).toEqual(Object.fromEntries(DEAD_LETTER_QUEUES.map((queue) => [queue, 0])));
  });
});
