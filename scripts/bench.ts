/**
 * End-to-end benchmark: signed transfers through the gateway. The whole system runs as the
 * README starts it (scripts/start.ts, each service its own process); this process is the load
 * generator. It signs real HMAC requests with the SDK (a fresh Idempotency-Key, timestamp and
 * nonce per transfer) and drives POST /v1/transfers:
 *
 *   closed loop   BENCH_CONCURRENCY transfers in flight, BENCH_TRANSFERS in all
 *   open loop     BENCH_RATE transfers/s offered for BENCH_SECONDS, latency measured from the
 *                 moment each was due (no coordinated omission)
 *
 * each for spread wallets (random pairs of BENCH_WALLETS) and for one hot receiving wallet.
 * Completed = answered 201 (the ledger confirmed within the deadline); accepted = 201 or 202.
 *
 *   npm run bench        BENCH_WALLETS=200 BENCH_CONCURRENCY=64 BENCH_TRANSFERS=6000 BENCH_RATE=700 BENCH_SECONDS=10
 *                        BENCH_WORKLOADS=closed-spread,closed-hot,open-spread,open-hot BENCH_FEES=1
 *                        BENCH_TIMELINE=1 (the open loop's latency second by second)
 *                        BENCH_START_AT=<ms since the epoch> (start the workloads then: paired runs of two versions)
 *                        BENCH_STORAGE=1 (after the workloads: every database's bytes per transfer, after a VACUUM, then at steady state)
 *                        BENCH_KEEP=1 (keep the run's databases, to look into them afterwards)
 *
 * After the figures it prints, per transfer in each workload, the CPU time each part of the
 * system (each service, PostgreSQL, RabbitMQ, this load generator) used, its write system calls
 * and its context switches, read from /proc.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { ACCOUNTS, type LedgerPostV1 } from '@wallet/contracts';
import { DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL } from '@wallet/kit';
import { LedgerCommandClient } from '@wallet/money-commands';
import { WalletClient } from '@wallet/sdk';
import { Pool } from 'undici';
import { databaseSize, formatStorageReport, formatSteadyState, retentionWindows } from './lib/storage-report';
import { calibrationMs, dropSystem, pooledFetch, runDatabaseUrl, type RunningSystem, SERVICES, startSystem } from './lib/system';
import { type CpuShare, closedLoop, type Figures, type LoadTarget, type MeasuredSystem, openLoop, type Wallet } from './lib/transfer-load';

const WALLETS = Number(process.env.BENCH_WALLETS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 6_000);
const RATE = Number(process.env.BENCH_RATE ?? 700);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** With a published default fee schedule, so every transfer also credits the tenant's fee and commission accounts. */
const FEES = process.env.BENCH_FEES === '1';
const TIMELINE = process.env.BENCH_TIMELINE === '1';
/**
 * Wall-clock time (ms since the epoch) to start the workloads at, after the set-up: two runs
 * started together (two versions of the code) then measure the same moments of a machine
 * whose speed drifts, each under the other's load.
 */
const START_AT_MS = Number(process.env.BENCH_START_AT ?? 0);
const STORAGE = process.env.BENCH_STORAGE === '1';
const WORKLOADS = (process.env.BENCH_WORKLOADS ?? 'closed-spread,closed-hot,open-spread,open-hot').split(',').filter(Boolean);

const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const amqpServerUrl = process.env.AMQP_URL ?? DEFAULT_AMQP_URL;
const runId = `bench${Date.now().toString(36)}`;
const SYSTEM_KEY = `sys_bench_${randomUUID()}`;

function databaseUrl(name: string): string {
  return runDatabaseUrl(serverUrl, runId, name);
}

/** Where each service serves /metrics: the gateway on its admin listener. */
function metricsUrls(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    SERVICES.map((service) => [
      service,
      `http://127.0.0.1:${env[service === 'gateway' ? 'ADMIN_PORT' : `${service.toUpperCase()}_PORT`]}/metrics`,
    ]),
  );
}

/** Bytes per completed transfer in each database, the system stopped (funding and set-up included: small beside the workloads). */
async function printStorage(windows: ReadonlyMap<string, number>): Promise<void> {
  const payments = new pg.Client({ connectionString: databaseUrl('payments') });
  await payments.connect();
  const counted = await payments.query<{ count: string }>(`SELECT count(*) AS count FROM transfers WHERE status = 'completed'`);
  await payments.end();
  const transfers = Number(counted.rows[0]?.count ?? 0);
  if (transfers === 0) return;
  const sizes = [];
  for (const service of SERVICES) sizes.push(await databaseSize(databaseUrl(service), service));
  console.log('');
  for (const line of formatStorageReport(sizes, transfers)) console.log(line);
  for (const line of formatSteadyState(sizes, transfers, windows)) console.log(line);
}

async function main(): Promise<void> {
  const system: RunningSystem = await startSystem({
    serverUrl,
    amqpServerUrl,
    runId,
    systemKey: SYSTEM_KEY,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  const { baseUrl, env } = system;
  const measured: MeasuredSystem = { runId, systemPid: system.process.pid };
  const results: Figures[] = [];
  let calibrationBefore = Number.NaN;
  let windows = new Map<string, number>();
  // Enough connections for the open loop, whose requests in flight are not bounded.
  const pool = new Pool(baseUrl, { connections: Math.max(CONCURRENCY, 256), pipelining: 1 });
  try {
    const platform = new WalletClient({ baseUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    const tenant = await platform.system.tenants.create({
      name: 'Bench',
      slug: `bench-${runId}`,
      config: { defaultCurrency: 'USD', allowedCurrencies: ['USD'], maxTransactionAmount: '1000000' },
    });
    if (FEES) {
      const schedule = await platform.fees.tenantSchedules.create(tenant.id, {
        name: 'Bench',
        isDefault: true,
        platformCommissionBps: 2000,
      });
      await platform.fees.tenantSchedules.addRule(tenant.id, schedule.id, {
        transactionType: 'transfer',
        currencyCode: 'USD',
        flatFee: '0.05',
        percentageFee: '1',
        maxFee: '5.00',
      });
      await platform.fees.tenantSchedules.publish(tenant.id, schedule.id, { makeDefault: true });
    }
    const key = await platform.apiKeys.createForTenant(tenant.id, {
      name: 'bench',
      authMode: 'hmac',
      scopes: ['ledger:write', 'ledger:read'],
      environment: 'test',
    });
    const client = new WalletClient({
      baseUrl,
      auth: { type: 'hmac', keyId: key.id, signingSecret: key.signingSecret as string },
      validateResponses: false,
      maxRetries: 0,
      fetch: pooledFetch(pool),
    });

    // Wallets through the API; their funds straight into the ledger (setup, not measured).
    const wallets: Wallet[] = [];
    for (let index = 0; index < WALLETS; index += 1) {
      const ownerId = `bench-${index}`;
      const wallet = await client.wallets.create({ ownerType: 'user', ownerId, currencyCode: 'USD' });
      wallets.push({ id: wallet.id, ownerId });
    }
    const ledger = await LedgerCommandClient.connect(env.AMQP_URL as string, 'bench-funding');
    await Promise.all(
      wallets.map((wallet) => {
        const command: LedgerPostV1 = {
          type: 'ledger.post.v1',
          commandId: `fund-${wallet.id}`,
          tenantId: tenant.id,
          environment: 'test',
          kind: 'momo_deposit',
          reference: { type: 'deposit', id: `dep_bench_${wallet.id}` },
          lines: [
            { accountName: ACCOUNTS.momoFloat.nameFor('bench'), direction: 'DR', amount: '10000000.00', currencyCode: 'USD' },
            {
              accountName: ACCOUNTS.wallet.nameFor(wallet.ownerId),
              walletId: wallet.id,
              direction: 'CR',
              amount: '10000000.00',
              currencyCode: 'USD',
            },
          ],
        };
        return ledger.request(command, { timeoutMs: 60_000 });
      }),
    );
    await ledger.close();

    console.log('End-to-end benchmark: signed transfers through the gateway');
    console.log(
      `  machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
    );
    console.log('  the five services as processes (scripts/start.ts), PostgreSQL, RabbitMQ and this load generator on the same machine');
    console.log(`  HMAC-signed POST /v1/transfers with a fresh Idempotency-Key each, ${WALLETS} funded USD wallets, rate limits off`);
    console.log(
      FEES
        ? '  default fee schedule: 0.05 + 1 % (at most 5.00) per transfer, 20 % platform commission'
        : '  no fee schedule (BENCH_FEES=1 for one)',
    );
    console.log(`  closed loop: ${TRANSFERS} transfers, ${CONCURRENCY} in flight; open loop: ${RATE}/s offered for ${SECONDS} s`);

    const hot = wallets[0] as Wallet;
    const spread: LoadTarget = { client, wallets, hot: null, system: measured };
    const toHot: LoadTarget = { ...spread, hot };
    const closed = { concurrency: CONCURRENCY, transfers: TRANSFERS };
    const open = { rate: RATE, seconds: SECONDS, timeline: TIMELINE };
    const workloads: Record<string, () => Promise<Figures>> = {
      'closed-spread': () => closedLoop(`closed, spread, ${CONCURRENCY} in flight`, spread, closed),
      'closed-hot': () => closedLoop(`closed, hot receiver, ${CONCURRENCY} in flight`, toHot, closed),
      'open-spread': () => openLoop(`open, spread, ${RATE}/s`, spread, open),
      'open-hot': () => openLoop(`open, hot receiver, ${RATE}/s`, toHot, open),
    };
    await closedLoop('warm-up', spread, closed);
    if (START_AT_MS > 0) {
      if (Date.now() > START_AT_MS) console.error(`  BENCH_START_AT passed ${Date.now() - START_AT_MS} ms before the workloads were ready`);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, START_AT_MS - Date.now())));
    }
    calibrationBefore = calibrationMs();
    for (const name of WORKLOADS) {
      const run = workloads[name];
      if (!run) throw new Error(`BENCH_WORKLOADS: no workload ${name} (choose from ${Object.keys(workloads).join(', ')})`);
      results.push(await run());
    }
    // Read while the services run: the windows they purge by, for the storage at steady state.
    if (STORAGE) windows = await retentionWindows(metricsUrls(env));
  } finally {
    await pool.close();
    await system.stop();
  }

  console.log('');
  console.log('  workload                          sent  accepted/s  completed/s   p50 ms   p95 ms   p99 ms  other answers');
  for (const row of results) {
    console.log(
      `  ${row.label.padEnd(32)} ${String(row.sent).padStart(5)} ${row.acceptedPerSecond.toFixed(0).padStart(11)} ${row.completedPerSecond.toFixed(0).padStart(12)} ${row.p50.toFixed(1).padStart(8)} ${row.p95.toFixed(1).padStart(8)} ${row.p99.toFixed(1).padStart(8)}  ${row.refused}`,
    );
  }
  console.log('');
  console.log(
    `  calibration: 64 MiB of SHA-256 took ${calibrationBefore.toFixed(0)} ms before the workloads and ${calibrationMs().toFixed(0)} ms after (a slower machine takes longer)`,
  );
  console.log(
    `  the machine's ${os.cpus().length} cores during each workload (from /proc/stat): busy, idle, and stolen by the hypervisor for other guests`,
  );
  const percent = (share: number) => `${(share * 100).toFixed(0)} %`;
  for (const row of results)
    console.log(
      `  ${row.label.padEnd(32)} busy ${percent(row.machine.busy)}, idle ${percent(row.machine.idle)}, stolen ${percent(row.machine.stolen)}`,
    );
  console.log(
    `  CPU per transfer (ms, user + system, from /proc; ${os.cpus().length} cores give ${os.cpus().length * 1000} ms of CPU per second)`,
  );
  for (const row of results) {
    const total = row.cpu.reduce((sum, share) => sum + share.msPerTransfer, 0);
    console.log(
      `  ${row.label.padEnd(32)} total ${total.toFixed(2)}: ${row.cpu.map((share) => `${share.process} ${share.msPerTransfer.toFixed(2)}`).join(', ')}`,
    );
  }
  console.log('  of which in the kernel (system time)');
  for (const row of results) {
    const total = row.cpu.reduce((sum, share) => sum + share.systemMsPerTransfer, 0);
    console.log(
      `  ${row.label.padEnd(32)} total ${total.toFixed(2)}: ${row.cpu.map((share) => `${share.process} ${share.systemMsPerTransfer.toFixed(2)}`).join(', ')}`,
    );
  }
  // Machine-independent where CPU time is not: what a change does to them shows in one run.
  for (const [title, figure] of [
    ['Write system calls per transfer (from /proc/<pid>/io)', (share: CpuShare) => share.writesPerTransfer],
    [
      'Context switches per transfer (every thread, voluntary and preempted, from /proc/<pid>/task)',
      (share: CpuShare) => share.switchesPerTransfer,
    ],
  ] as const) {
    console.log(`  ${title}`);
    for (const row of results) {
      const shares = [...row.cpu].sort((a, b) => figure(b) - figure(a));
      const total = shares.reduce((sum, share) => sum + figure(share), 0);
      console.log(
        `  ${row.label.padEnd(32)} total ${total.toFixed(1)}: ${shares.map((share) => `${share.process} ${figure(share).toFixed(1)}`).join(', ')}`,
      );
    }
  }

  if (STORAGE) await printStorage(windows);

  if (process.env.BENCH_KEEP === '1') console.log(`  databases ${runId}_* kept (BENCH_KEEP=1)`);
  else await dropSystem(serverUrl, amqpServerUrl, runId);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
