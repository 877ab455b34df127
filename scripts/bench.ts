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
 *                        BENCH_WEBHOOKS=1 (the tenant has one webhook endpoint subscribed to every event, a receiver in this process)
 *
 * After the figures it prints, per transfer in each workload, the CPU time each part of the
 * system (each service, PostgreSQL, RabbitMQ, this load generator) used, its write system calls
 * and its context switches, read from /proc.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL } from '@wallet/kit';
import { Pool } from 'undici';
import { createBenchTenant } from './lib/bench-tenant';
import { startBenchReceiver, subscribeEveryEvent, webhookFigures } from './lib/bench-webhooks';
import { describeFigures } from './lib/figures-report';
import { databaseSize, formatStorageReport, formatSteadyState, retentionWindows } from './lib/storage-report';
import { calibrationMs, dropSystem, runDatabaseUrl, type RunningSystem, SERVICES, startSystem } from './lib/system';
import {
  closedLoop,
  type Figures,
  type LoadTarget,
  type MeasuredSystem,
  openLoop,
  processCounters,
  type Wallet,
} from './lib/transfer-load';

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
const WEBHOOKS = process.env.BENCH_WEBHOOKS === '1';
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
    // The receiver listens on 127.0.0.1.
    extraEnv: WEBHOOKS ? { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } : {},
  });
  const receiver = WEBHOOKS ? await startBenchReceiver() : null;
  const { baseUrl, env } = system;
  const measured: MeasuredSystem = { runId, systemPid: system.process.pid };
  const results: Figures[] = [];
  let calibrationBefore = Number.NaN;
  let windows = new Map<string, number>();
  const webhookLines: string[] = [];
  // Enough connections for the open loop, whose requests in flight are not bounded.
  const pool = new Pool(baseUrl, { connections: Math.max(CONCURRENCY, 256), pipelining: 1 });
  try {
    const { client, wallets, tenantId } = await createBenchTenant({
      baseUrl,
      systemKey: SYSTEM_KEY,
      amqpUrl: env.AMQP_URL as string,
      slug: `bench-${runId}`,
      wallets: WALLETS,
      fees: FEES,
      pool,
    });
    if (receiver) await subscribeEveryEvent({ baseUrl, systemKey: SYSTEM_KEY, tenantId, url: receiver.url });

    console.log('End-to-end benchmark: signed transfers through the gateway');
    console.log(
      `  machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
    );
    console.log(
      "  the five services as processes (scripts/start.ts, identity's webhook delivery a sixth at nice 10), PostgreSQL, RabbitMQ and this load generator on the same machine",
    );
    console.log(`  HMAC-signed POST /v1/transfers with a fresh Idempotency-Key each, ${WALLETS} funded USD wallets, rate limits off`);
    console.log(
      FEES
        ? '  default fee schedule: 0.05 + 1 % (at most 5.00) per transfer, 20 % platform commission'
        : '  no fee schedule (BENCH_FEES=1 for one)',
    );
    console.log(`  closed loop: ${TRANSFERS} transfers, ${CONCURRENCY} in flight; open loop: ${RATE}/s offered for ${SECONDS} s`);
    console.log(
      receiver ? '  one webhook endpoint subscribed to every event (BENCH_WEBHOOKS=1)' : '  no webhook endpoint (BENCH_WEBHOOKS=1 for one)',
    );

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
    const countersBefore = processCounters(measured);
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
    if (receiver)
      webhookLines.push(
        ...(await webhookFigures({
          identityDatabaseUrl: system.databaseUrl('identity'),
          system: measured,
          before: countersBefore,
          receiver,
        })),
      );
    // Read while the services run: the windows they purge by, for the storage at steady state.
    if (STORAGE) windows = await retentionWindows(metricsUrls(env));
  } finally {
    await pool.close();
    await system.stop();
    await receiver?.close();
  }

  for (const line of [...webhookLines, ...describeFigures(results, calibrationBefore)]) console.log(line);

  if (STORAGE) await printStorage(windows);

  if (process.env.BENCH_KEEP === '1') console.log(`  databases ${runId}_* kept (BENCH_KEEP=1)`);
  else await dropSystem(serverUrl, amqpServerUrl, runId);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
