/**
 * Ledger benchmark: posts N commands through RabbitMQ into a running ledger process and
 * reports postings/s and publish-to-reply latency, for (a) transfers between random wallets
 * and (b) the same with every transfer also crediting one hot fee account; then posts the same
 * workloads straight into PostgreSQL with one plain transaction per posting (no broker, no
 * batching), in the same run, so the result is a ratio as well as a time.
 *
 *   npm run bench:ledger            BENCH_N=20000 BENCH_WALLETS=1000 BENCH_INFLIGHT=2000 BENCH_BASELINE_N=5000 BENCH_BASELINE_CLIENTS=16
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import amqp from 'amqplib';
import BigNumber from 'bignumber.js';
import pg from 'pg';
import { ACCOUNTS, type LedgerPostV1, newId, TOPOLOGY } from '@wallet/contracts';
import { createDb, DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL, ensureDatabase, migrate } from '@wallet/kit';
import { LedgerCommandClient } from '@wallet/money-commands';
import { createTestVhost, dropRunVhosts } from '@wallet/kit/testing';
import { migrations } from '../services/ledger/migrations';
import { bundlePath, buildServices } from './build';

const ROOT = path.resolve(__dirname, '..');
const N = Number(process.env.BENCH_N ?? 20_000);
const WALLETS = Number(process.env.BENCH_WALLETS ?? 1_000);
const IN_FLIGHT = Number(process.env.BENCH_INFLIGHT ?? 2_000);
const BASELINE_N = Number(process.env.BENCH_BASELINE_N ?? 5_000);
const BASELINE_CLIENTS = Number(process.env.BENCH_BASELINE_CLIENTS ?? 16);
const BATCH_SIZE_MAX = process.env.LEDGER_BATCH_SIZE_MAX ?? '500';

const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const amqpServerUrl = process.env.AMQP_URL ?? DEFAULT_AMQP_URL;
const runId = `bench${Date.now().toString(36)}`;

function databaseUrl(name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${runId}_${name}`;
  return url.toString();
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number;
}

interface Figures {
  label: string;
  postings: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  posted: number;
  rejected: number;
}

/** The account of bench wallet `index`; of no index, the prefix the direct funding numbers. */
function benchWallet(index: number | ''): string {
  return ACCOUNTS.wallet.nameFor(`bench-${index}`);
}

function transfer(tenantId: string, index: number, withFee: boolean): LedgerPostV1 {
  const from = Math.floor(Math.random() * WALLETS);
  let to = Math.floor(Math.random() * (WALLETS - 1));
  if (to >= from) to += 1;
  const amount = `${(index % 50) + 1}.00`;
  const lines: LedgerPostV1['lines'] = [
    { accountName: benchWallet(from), walletId: `wl_bench_${from}`, direction: 'DR', amount, currencyCode: 'USD' },
    { accountName: benchWallet(to), walletId: `wl_bench_${to}`, direction: 'CR', amount, currencyCode: 'USD' },
  ];
  if (withFee) {
    lines.push(
      { accountName: benchWallet(from), walletId: `wl_bench_${from}`, direction: 'DR', amount: '0.25', currencyCode: 'USD' },
      { accountName: ACCOUNTS.feeRevenue.name, direction: 'CR', amount: '0.25', currencyCode: 'USD' },
    );
  }
  return {
    type: 'ledger.post.v1',
    commandId: `bench-${randomUUID()}`,
    tenantId,
    environment: 'test',
    kind: 'transfer',
    reference: { type: 'transfer', id: newId('transfer') },
    lines,
  };
}

function funding(tenantId: string, wallet: number): LedgerPostV1 {
  return {
    type: 'ledger.post.v1',
    commandId: `fund-${randomUUID()}`,
    tenantId,
    environment: 'test',
    kind: 'momo_deposit',
    reference: { type: 'deposit', id: newId('deposit') },
    lines: [
      { accountName: ACCOUNTS.momoFloat.nameFor('mtn'), direction: 'DR', amount: '1000000.00', currencyCode: 'USD' },
      { accountName: benchWallet(wallet), walletId: `wl_bench_${wallet}`, direction: 'CR', amount: '1000000.00', currencyCode: 'USD' },
    ],
  };
}

/** Keeps IN_FLIGHT requests outstanding until all are answered; records each publish-to-reply time. */
async function drive(client: LedgerCommandClient, commands: LedgerPostV1[], label: string): Promise<Figures> {
  const latencies: number[] = [];
  let next = 0;
  let posted = 0;
  let rejected = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (next < commands.length) {
      const command = commands[next] as LedgerPostV1;
      next += 1;
      const sent = process.hrtime.bigint();
      const result = await client.request(command, { timeoutMs: 120_000 });
      latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
      if (result.status === 'posted') posted += 1;
      else rejected += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, commands.length) }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    label,
    postings: commands.length,
    seconds,
    perSecond: commands.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    posted,
    rejected,
  };
}

/** The same posting, the plain way: one transaction each, row locks, no batching, no broker. */
async function baseline(pool: pg.Pool, commands: LedgerPostV1[], label: string): Promise<Figures> {
  const latencies: number[] = [];
  let next = 0;
  let posted = 0;
  let rejected = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    const client = await pool.connect();
    try {
      while (next < commands.length) {
        const command = commands[next] as LedgerPostV1;
        next += 1;
        const sent = process.hrtime.bigint();
        if (await postOne(client, command)) posted += 1;
        else rejected += 1;
        latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
      }
    } finally {
      client.release();
    }
  };
  await Promise.all(Array.from({ length: BASELINE_CLIENTS }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    label,
    postings: commands.length,
    seconds,
    perSecond: commands.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    posted,
    rejected,
  };
}

async function postOne(client: pg.PoolClient, command: LedgerPostV1): Promise<boolean> {
  await client.query('BEGIN');
  try {
    const ids: string[] = [];
    const balances = new Map<string, BigNumber>();
    // Lock in a fixed order (by name) so concurrent transactions cannot deadlock.
    const keys = [...new Set(command.lines.map((line) => line.walletId ?? line.accountName))].sort();
    const byKey = new Map<string, { id: string; num: string; normal: string; balance: BigNumber; nonNegative: boolean }>();
    for (const key of keys) {
      const isWallet = key.startsWith('wl_');
      const found = await client.query(
        isWallet
          ? 'SELECT id, num, normal_side, balance, non_negative FROM accounts WHERE tenant_id = $1 AND environment = $2 AND wallet_id = $3 FOR UPDATE'
          : "SELECT id, num, normal_side, balance, non_negative FROM accounts WHERE tenant_id = $1 AND environment = $2 AND currency_code = 'USD' AND name = $3 AND wallet_id IS NULL FOR UPDATE",
        [command.tenantId, command.environment, key],
      );
      const row = found.rows[0] as { id: string; num: string; normal_side: string; balance: string; non_negative: boolean };
      byKey.set(key, {
        id: row.id,
        num: row.num,
        normal: row.normal_side,
        balance: new BigNumber(row.balance),
        nonNegative: row.non_negative,
      });
    }
    for (const line of command.lines) {
      const account = byKey.get(line.walletId ?? line.accountName) as {
        id: string;
        normal: string;
        balance: BigNumber;
        nonNegative: boolean;
      };
      const current = balances.get(account.id) ?? account.balance;
      balances.set(account.id, line.direction === account.normal ? current.plus(line.amount) : current.minus(line.amount));
      ids.push(account.id);
    }
    for (const account of byKey.values()) {
      if (account.nonNegative && (balances.get(account.id) as BigNumber).isNegative()) {
        await client.query('ROLLBACK');
        return false;
      }
    }
    const entryId = newId('journalEntry');
    const entry = await client.query(
      `INSERT INTO journal_entries (id, tenant_id, environment, kind, reference_type, reference_id, command_key, created_at) VALUES ($1, $2, $3, $4, $5, $6, command_key($7), now()) RETURNING seq`,
      [entryId, command.tenantId, command.environment, command.kind, command.reference.type, command.reference.id, command.commandId],
    );
    const seq = (entry.rows[0] as { seq: string }).seq;
    const running = new Map<string, BigNumber>();
    for (const [index, line] of command.lines.entries()) {
      const account = byKey.get(line.walletId ?? line.accountName) as { id: string; num: string; normal: string; balance: BigNumber };
      const after = (running.get(account.id) ?? account.balance)[line.direction === account.normal ? 'plus' : 'minus'](line.amount);
      running.set(account.id, after);
      await client.query(
        'INSERT INTO journal_lines (entry_seq, line_no, account_num, direction, amount, balance_after) VALUES ($1, $2, $3, $4, $5, $6)',
        [seq, index + 1, account.num, line.direction, line.amount, after.toFixed()],
      );
    }
    for (const [id, balance] of balances) await client.query('UPDATE accounts SET balance = $2 WHERE id = $1', [id, balance.toFixed()]);
    await client.query('INSERT INTO processed_commands (command_id, tenant_id, payload_hash, result) VALUES ($1, $2, $3, $4)', [
      command.commandId,
      command.tenantId,
      'baseline',
      JSON.stringify({ status: 'posted', journalEntryId: entryId }),
    ]);
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

async function fundDirectly(url: string, tenantId: string): Promise<void> {
  const db = createDb(url, { poolMax: 2 });
  await migrate(db, migrations);
  await db.raw(
    `INSERT INTO accounts (id, tenant_id, environment, currency_code, name, wallet_id, normal_side, non_negative, balance)
     SELECT 'acc_bench_' || g, ?, 'test', 'USD', ?::text || g, 'wl_bench_' || g, ?::char(2), ?::boolean, 1000000 FROM generate_series(0, ? - 1) g`,
    [tenantId, benchWallet(''), ACCOUNTS.wallet.normalSide, !ACCOUNTS.wallet.mayGoBelowZero, WALLETS],
  );
  await db.raw(
    `INSERT INTO accounts (id, tenant_id, environment, currency_code, name, normal_side) VALUES ('acc_bench_fees', ?, 'test', 'USD', ?, ?)`,
    [tenantId, ACCOUNTS.feeRevenue.name, ACCOUNTS.feeRevenue.normalSide],
  );
  await db.destroy();
}

function waitForConsumer(amqpUrl: string): Promise<void> {
  return (async () => {
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const connection = await amqp.connect(amqpUrl);
      // checkQueue on a queue not declared yet closes the channel with an error event.
      connection.on('error', () => undefined);
      try {
        const channel = await connection.createChannel();
        const { consumerCount } = await channel.checkQueue(TOPOLOGY.ledgerCommands.unplacedQueue);
        if (consumerCount > 0) return;
      } catch {
        // queue not declared yet
      } finally {
        await connection.close().catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('the ledger did not start consuming');
  })();
}

function printTable(rows: Figures[]): void {
  console.log('\n| workload | postings | seconds | postings/s | p50 ms | p99 ms | posted | rejected |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${row.postings} | ${row.seconds.toFixed(2)} | ${Math.round(row.perSecond)} | ${row.p50Ms.toFixed(1)} | ${row.p99Ms.toFixed(1)} | ${row.posted} | ${row.rejected} |`,
    );
  }
}

async function main(): Promise<void> {
  process.env.WALLET_TEST_DATABASE_URL = serverUrl;
  process.env.WALLET_TEST_AMQP_URL = amqpServerUrl;
  process.env.WALLET_TEST_RUN_ID = runId;
  const ledgerDb = databaseUrl('ledger');
  await ensureDatabase(ledgerDb);
  const amqpUrl = await createTestVhost('ledger');
  const connection = await amqp.connect(amqpUrl);
  const serverProperties = (connection as unknown as { connection: { serverProperties: Record<string, string> } }).connection
    .serverProperties;
  await connection.close();
  const pgVersion = await (async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    const version = (await client.query('SHOW server_version')).rows[0].server_version as string;
    await client.end();
    return version;
  })();

  console.log('Ledger benchmark');
  console.log(
    `  machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}, node ${process.version}`,
  );
  console.log(
    `  PostgreSQL ${pgVersion} and RabbitMQ ${serverProperties.version ?? '?'} on the same machine; ledger in its own process (batch size max ${BATCH_SIZE_MAX})`,
  );
  console.log(
    `  through the broker: ${N} postings per workload, ${WALLETS} wallets, ${IN_FLIGHT} requests in flight, persistent confirmed commands on a quorum queue, replies on an exclusive queue`,
  );
  console.log(
    `  baseline: ${BASELINE_N} postings per workload, ${BASELINE_CLIENTS} clients, one plain transaction per posting (row locks, no broker, no batching)`,
  );

  await buildServices(['ledger']);
  const ledger: ChildProcess = spawn(
    process.execPath,
    [...(process.env.BENCH_LEDGER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--enable-source-maps', bundlePath('ledger')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        LEDGER_DATABASE_URL: ledgerDb,
        AMQP_URL: amqpUrl,
        LEDGER_PORT: '0',
        INTERNAL_TOKEN_SECRET: randomUUID() + randomUUID(),
        LOG_LEVEL: process.env.BENCH_LEDGER_LOG_LEVEL ?? 'warn',
        LEDGER_BATCH_SIZE_MAX: BATCH_SIZE_MAX,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const results: Figures[] = [];
  try {
    await waitForConsumer(amqpUrl);
    const client = await LedgerCommandClient.connect(amqpUrl, 'bench');
    const tenantId = `tn_bench_${runId}`;
    await drive(
      client,
      Array.from({ length: WALLETS }, (_, wallet) => funding(tenantId, wallet)),
      'funding',
    );
    // Warm-up, not reported.
    await drive(
      client,
      Array.from({ length: 2000 }, (_, index) => transfer(tenantId, index, true)),
      'warm-up',
    );
    results.push(
      await drive(
        client,
        Array.from({ length: N }, (_, index) => transfer(tenantId, index, false)),
        '(a) broker, random wallets',
      ),
    );
    results.push(
      await drive(
        client,
        Array.from({ length: N }, (_, index) => transfer(tenantId, index, true)),
        '(b) broker, + hot fee account',
      ),
    );
    await client.close();
  } finally {
    ledger.kill('SIGTERM');
    await new Promise((resolve) => ledger.once('exit', resolve));
  }

  const baselineUrl = databaseUrl('baseline');
  await ensureDatabase(baselineUrl);
  const baselineTenant = `tn_baseline_${runId}`;
  await fundDirectly(baselineUrl, baselineTenant);
  const pool = new pg.Pool({ connectionString: baselineUrl, max: BASELINE_CLIENTS });
  results.push(
    await baseline(
      pool,
      Array.from({ length: BASELINE_N }, (_, index) => transfer(baselineTenant, index, false)),
      '(c) baseline, random wallets',
    ),
  );
  results.push(
    await baseline(
      pool,
      Array.from({ length: BASELINE_N }, (_, index) => transfer(baselineTenant, index, true)),
      '(d) baseline, + hot fee account',
    ),
  );
  await pool.end();

  printTable(results);
  const [a, b, , d] = results as [Figures, Figures, Figures, Figures];
  console.log(`\n(b)/(a) = ${(b.perSecond / a.perSecond).toFixed(2)}   (b)/(d) = ${(b.perSecond / d.perSecond).toFixed(2)}`);

  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  for (const name of ['ledger', 'baseline']) await admin.query(`DROP DATABASE IF EXISTS "${runId}_${name}" WITH (FORCE)`);
  await admin.end();
  await dropRunVhosts(amqpServerUrl, runId);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
