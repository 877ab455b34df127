/**
 * `npm run bench:cluster`: the signed-transfer benchmark of `npm run bench`, against the one-machine cluster
 * (scripts/lib/cluster.ts: three RabbitMQ nodes, pg_auto_failover formations with synchronous standbys for the services and
 * for each of the ledger's two shards, two instances of each service, HAProxy in front), to set beside `npm run bench` run
 * in the same sitting. It prints, per workload, transfers/s, latency percentiles and the CPU each part of the cluster spent
 * per transfer: the services (both instances), each database's backends (both ledger shards' together), replication (WAL
 * senders, receivers, replay), pg_auto_failover, the three RabbitMQ nodes, HAProxy.
 *
 *   npm run build && npm run bench:cluster   BENCH_WALLETS=200 BENCH_CONCURRENCY=64 BENCH_TRANSFERS=4000 BENCH_RATE=300 BENCH_SECONDS=10
 *                                            BENCH_WORKLOADS=closed-spread,open-spread BENCH_FEES=1
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { devSecrets } from './dev-secrets';
import { createBenchTenant } from './lib/bench-tenant';
import { missingClusterPackages, startCluster } from './lib/cluster';
import { describeFigures } from './lib/figures-report';
import { calibrationMs, RATE_LIMITS_OFF } from './lib/system';
import { closedLoop, type Figures, type LoadTarget, openLoop, settle } from './lib/transfer-load';

const WALLETS = Number(process.env.BENCH_WALLETS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 4_000);
const RATE = Number(process.env.BENCH_RATE ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FEES = process.env.BENCH_FEES === '1';
const WORKLOADS = (process.env.BENCH_WORKLOADS ?? 'closed-spread,open-spread').split(',').filter(Boolean);

async function main(): Promise<void> {
  const missing = missingClusterPackages();
  if (missing.length > 0) throw new Error(`the cluster needs Debian's ${missing.join(', ')}`);
  const cluster = await startCluster({
    base: path.join(os.tmpdir(), 'wallet-bench-cluster'),
    log: (line) => console.log(line),
    env: RATE_LIMITS_OFF,
  });
  const baseUrl = `http://127.0.0.1:${cluster.publicPorts.gateway}`;
  const pool = new Pool(baseUrl, { connections: Math.max(CONCURRENCY, 256), pipelining: 1 });
  const results: Figures[] = [];
  let calibrationBefore = Number.NaN;
  try {
    const { client, wallets } = await createBenchTenant({
      baseUrl,
      systemKey: devSecrets().secrets.SYSTEM_API_KEY,
      amqpUrl: cluster.rabbit.amqpUrl,
      slug: `bench-${randomUUID().slice(0, 8)}`,
      wallets: WALLETS,
      fees: FEES,
      pool,
    });
    // The cluster's databases are `wallet_<service>` and this process started its services.
    const spread: LoadTarget = { client, wallets, hot: null, system: { runId: 'wallet', systemPid: process.pid } };
    console.log('Cluster benchmark: signed transfers through HAProxy');
    console.log(`  machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, node ${process.version}; everything on it`);
    console.log(
      `  HMAC-signed POST /v1/transfers, ${WALLETS} funded USD wallets of one tenant${FEES ? ', a default fee schedule' : ''}, rate limits off`,
    );
    // One tenant is on one shard: the other shard's formation runs beside the load, not under it.
    console.log(`  ledger: ${cluster.postgres.ledger.length} shards, each its own formation; the tenant's transfers post on its one shard`);
    console.log(`  closed loop: ${TRANSFERS} transfers, ${CONCURRENCY} in flight; open loop: ${RATE}/s offered for ${SECONDS} s`);
    const workloads: Record<string, () => Promise<Figures>> = {
      'closed-spread': () =>
        closedLoop(`closed, spread, ${CONCURRENCY} in flight`, spread, { concurrency: CONCURRENCY, transfers: TRANSFERS }),
      'open-spread': () => openLoop(`open, spread, ${RATE}/s`, spread, { rate: RATE, seconds: SECONDS, timeline: false }),
    };
    await closedLoop('warm-up', spread, { concurrency: CONCURRENCY, transfers: Math.min(TRANSFERS, 1_000) });
    calibrationBefore = calibrationMs();
    for (const name of WORKLOADS) {
      const run = workloads[name];
      if (!run) throw new Error(`BENCH_WORKLOADS: no workload ${name} (choose from ${Object.keys(workloads).join(', ')})`);
      // Each workload starts on a quiet cluster: the last one's outbox and read models worked off.
      await settle(spread.system, 30_000);
      results.push(await run());
    }
  } finally {
    await pool.close();
    await cluster.stop();
  }
  for (const line of describeFigures(results, calibrationBefore)) console.log(line);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
