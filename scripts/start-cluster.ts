import os from 'node:os';
import path from 'node:path';
import { buildDashboard, buildServices } from './build';
import { missingClusterPackages, startCluster } from './lib/cluster';

/**
 * `npm run start:cluster`: the cluster of docs/scaling.md on this machine, from Debian's packages:
 * three RabbitMQ nodes, three pg_auto_failover formations (the services' databases and two
 * ledger shards), two instances of every service and HAProxy in front of them on the ports
 * `npm start` uses. Ctrl-C stops all of it and removes
 * its data (CLUSTER_DIR, default <tmp>/wallet-cluster). `npm start` stays the one-machine default.
 */
async function main(): Promise<void> {
  const missing = missingClusterPackages();
  if (missing.length > 0) {
    console.error(`The cluster needs Debian's ${missing.join(', ')}: apt-get install ${missing.join(' ')}`);
    process.exit(1);
  }
  await buildServices();
  await buildDashboard();
  const base = process.env.CLUSTER_DIR ?? path.join(os.tmpdir(), 'wallet-cluster');
  const cluster = await startCluster({ base, log: (line) => console.log(line) });
  const stop = async (): Promise<void> => {
    console.log('Stopping the cluster');
    await cluster.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  console.log('');
  console.log(`Wallet platform is running as a cluster (data and logs under ${base}):`);
  for (const line of cluster.describe()) console.log(line);
  console.log('Press Ctrl-C to stop.');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
