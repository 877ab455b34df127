/**
 * `npm run chaos:cluster`: the cluster fault run (docs/scaling.md). It starts the one-machine
 * cluster (scripts/lib/cluster.ts), puts transfer and payout load on it through HAProxy and, under
 * that load: kills one instance of each service with SIGKILL, stops and starts a RabbitMQ node,
 * kills ledger shard 1's primary with SIGKILL (its standby takes over), and freezes the ledger
 * writer holding the partitions with SIGSTOP past their hand-over, then resumes it. The ledger
 * runs on two shards, each its own formation, and the tenants are chosen so that both carry load.
 * Then it lets the system settle and checks, over every shard: no transfer lost or doubled (each
 * in exactly one shard), no dead letter, every payout case final, reconciliation `ok` (every
 * balance equals its lines, every entry balances), and the resumed writer committed nothing after
 * it was fenced. It prints each hand-over's and failover's time and stops by itself.
 *
 *   npm run build && npm run chaos:cluster      CHAOS_TENANTS=3 CHAOS_WORKERS=4 CHAOS_PAUSE_MS=8000
 *                                              CHAOS_KEEP=1 (keep the cluster's logs and data folders afterwards)
 */
import os from 'node:os';
import path from 'node:path';
import amqp from 'amqplib';
import { DEAD_LETTER_QUEUES } from '@wallet/contracts';
import { createDb, type Db } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import { WalletClient } from '@wallet/sdk';
import { devSecrets } from './dev-secrets';
import { type Holder, LedgerShardReads } from './lib/chaos-ledger';
import { type ChaosTenant, type LoadRecord, setupTenant, startLoad } from './lib/chaos-load';
import { missingClusterPackages, type RunningCluster, type ServiceInstance, startCluster } from './lib/cluster';

const TENANTS = Number(process.env.CHAOS_TENANTS ?? 3);
const WORKERS = Number(process.env.CHAOS_WORKERS ?? 4);
const PAUSE_MS = Number(process.env.CHAOS_PAUSE_MS ?? 8_000);

const timings: Array<[string, number]> = [];
const say = (line: string): void => console.log(line);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `probe`'s value once it has one; a probe that fails (a server mid-fault) counts as not yet. */
function until<Value>(what: string, probe: () => Promise<Value | undefined>, timeoutMs = 120_000): Promise<Value> {
  return waitFor(() => probe().catch(() => undefined), { what, timeoutMs, intervalMs: 100 });
}

/** The shard whose primary is killed: one beside the directory's, so the run shows a shard failing over while shard 0 serves on. */
const FAILOVER_SHARD = 1;

/**
 * How long each partition `pid` held took to reach another writer: the time from the fault to the new writer's claim,
 * which it makes on its first delivery of the partition (the load keeps every tenant's partition busy).
 */
async function handOvers(context: ChaosContext, pid: number, since: number, label: string): Promise<void> {
  // Only a partition with traffic is claimed again: one of a tenant set up without load keeps its old claim.
  const moving = [...(await loadedHolders(context))].filter(([, holder]) => holder.pid === pid).map(([partition]) => partition);
  const claimed = await until(`partitions ${moving.join(', ')} to be claimed by another writer`, async () => {
    const holders = await context.ledger.holders();
    const taken = moving.map((partition) => holders.get(partition));
    return taken.every((holder) => holder !== undefined && holder.pid !== pid) ? (taken as Holder[]) : undefined;
  });
  for (const [index, holder] of claimed.entries()) {
    const what = `partition ${moving[index]} (shard ${holder.shard}) claimed by pid ${holder.pid}, epoch ${holder.epoch}`;
    timings.push([`${label}: ${what}`, holder.claimedAt - since]);
  }
}

interface ChaosContext {
  cluster: RunningCluster;
  ledger: LedgerShardReads;
  /** The partitions of the tenants under load. */
  loaded: ReadonlySet<number>;
}

/** The holders of the partitions under load. */
async function loadedHolders(context: ChaosContext): Promise<Map<number, Holder>> {
  return new Map([...(await context.ledger.holders())].filter(([partition]) => context.loaded.has(partition)));
}

function instance(cluster: RunningCluster, service: string, pid?: number): ServiceInstance {
  const found = cluster.instances.find((each) => each.service === service && (pid === undefined || each.process.pid === pid));
  if (!found) throw new Error(`no ${service} instance${pid === undefined ? '' : ` with pid ${pid}`}`);
  return found;
}

async function killOneOfEach(context: ChaosContext): Promise<void> {
  const { cluster } = context;
  const holders = await loadedHolders(context);
  const writerPid = [...holders.values()][0]?.pid;
  const victims = ['gateway', 'identity', 'payments', 'treasury'].map((service) => instance(cluster, service));
  victims.push(instance(cluster, 'ledger', writerPid));
  const at = Date.now();
  for (const victim of victims) victim.process.kill('SIGKILL');
  say(`  SIGKILL: ${victims.map((victim) => `${victim.service}#${victim.index}`).join(', ')}`);
  if (writerPid !== undefined) await handOvers(context, writerPid, at, 'ledger writer killed');
  await pause(PAUSE_MS);
  for (const victim of victims) await cluster.restart(victim);
}

async function bounceRabbitNode(cluster: RunningCluster): Promise<void> {
  const node = cluster.rabbit.nodes[1];
  if (!node) return;
  const at = Date.now();
  await cluster.rabbit.stopNode(node);
  say(`  RabbitMQ ${node.name} stopped (${Date.now() - at} ms)`);
  await pause(PAUSE_MS);
  await cluster.rabbit.startNode(node);
  timings.push([`RabbitMQ ${node.name} down, then back`, Date.now() - at]);
}

async function failOverLedgerShard(cluster: RunningCluster, shard: number): Promise<void> {
  const formation = cluster.postgres.ledger[shard];
  if (!formation) throw new Error(`the cluster has no ledger shard ${shard}`);
  const primary = await formation.waitForPrimary({ withStandby: true });
  const at = Date.now();
  formation.kill(primary);
  say(`  kill -9: ledger shard ${shard}'s primary (:${primary.port})`);
  const promoted = await formation.waitForPrimary({ not: primary });
  timings.push([`ledger shard ${shard} database failover to :${promoted.port}`, Date.now() - at]);
  await pause(PAUSE_MS);
  formation.restart(primary);
  await formation.waitForPrimary({ withStandby: true, timeoutMs: 180_000 });
  timings.push(['old primary back as the synchronous standby', Date.now() - at]);
}

/** The frozen writer and what it had decided (committed) before the freeze and once its resumption had settled. */
interface FrozenWriter {
  instance: ServiceInstance;
  decidedBefore: number;
  decidedAfterResuming: number;
}

async function freezeLedgerWriter(context: ChaosContext): Promise<FrozenWriter | undefined> {
  const { cluster } = context;
  const pid = [...(await loadedHolders(context)).values()][0]?.pid;
  if (pid === undefined) return undefined;
  const frozen = instance(cluster, 'ledger', pid);
  const decidedBefore = (await writerCounters(frozen)).decided;
  const at = Date.now();
  frozen.process.kill('SIGSTOP');
  say(`  SIGSTOP: ledger#${frozen.index}, the writer of every partition with traffic`);
  await handOvers(context, pid, at, 'ledger writer frozen');
  await pause(PAUSE_MS / 2);
  frozen.process.kill('SIGCONT');
  say(`  SIGCONT: ledger#${frozen.index} resumed after ${Date.now() - at} ms`);
  // A batch whose COMMIT was sent before the freeze is counted once the writer runs again; it committed before the
  // claim, which waits for it. What the writer decides after this pause would be after its fencing.
  await pause(3_000);
  return { instance: frozen, decidedBefore, decidedAfterResuming: (await writerCounters(frozen)).decided };
}

/** Every transfer settled (none pending) and every payout case final. */
async function settle(payments: Db, record: LoadRecord): Promise<void> {
  await until(
    'every transfer to settle',
    async () => {
      const pending = await payments('transfers').where({ status: 'pending' }).count<Array<{ count: string }>>('* as count');
      return pending[0]?.count === '0' ? true : undefined;
    },
    120_000,
  );
  await until(
    'every payout case to be final',
    async () => {
      const open = await payments('payout_cases')
        .whereIn('id', [...record.payouts])
        .whereNotIn('status', ['completed', 'failed', 'rejected'])
        .count<Array<{ count: string }>>('* as count');
      return open[0]?.count === '0' ? true : undefined;
    },
    120_000,
  );
}

async function deadLetters(amqpUrl: string): Promise<number> {
  const connection = await amqp.connect(amqpUrl.split(',')[0] as string);
  let parked = 0;
  try {
    for (const queue of DEAD_LETTER_QUEUES) {
      const channel = await connection.createChannel();
      channel.on('error', () => undefined);
      parked += await channel.checkQueue(queue).then(
        (info) => info.messageCount,
        () => 0,
      );
      await channel.close().catch(() => undefined);
    }
  } finally {
    await connection.close();
  }
  return parked;
}

interface Verdict {
  problems: string[];
  lines: string[];
}

async function verify(
  cluster: RunningCluster,
  dbs: { ledger: LedgerShardReads; payments: Db },
  record: LoadRecord,
  frozen: FrozenWriter | undefined,
): Promise<Verdict> {
  const problems: string[] = [];
  const { entries: entryCount, perShard } = await dbs.ledger.transferEntries();
  const lost = [...record.completed].filter((id) => entryCount.get(id) !== 1);
  const doubled = [...entryCount.values()].filter((count) => count > 1).length;
  const stored = await dbs
    .payments('transfers')
    .whereIn('id', [...record.accepted])
    .whereNot({ status: 'completed' })
    .count<Array<{ count: string }>>('* as count');
  if (lost.length > 0) problems.push(`${lost.length} transfers answered 201 without exactly one entry`);
  if (doubled > 0) problems.push(`${doubled} transfers with more than one entry`);
  if (stored[0]?.count !== '0') problems.push(`${stored[0]?.count} accepted transfers not completed`);
  const parked = await deadLetters(cluster.rabbit.amqpUrl);
  if (parked > 0) problems.push(`${parked} dead letters`);
  const platform = new WalletClient({
    baseUrl: `http://127.0.0.1:${cluster.publicPorts.gateway}`,
    auth: { type: 'system', systemKey: devSecrets().secrets.SYSTEM_API_KEY },
  });
  const reconciliation = await platform.system.reconciliation();
  if (reconciliation.status !== 'ok') problems.push(`reconciliation ${reconciliation.status}`);
  const resumed = frozen ? await writerCounters(frozen.instance) : { decided: 0, fenced: 0 };
  const lateDecisions = frozen ? resumed.decided - frozen.decidedAfterResuming : 0;
  if (lateDecisions > 0) problems.push(`the resumed writer decided ${lateDecisions} commands after its partitions moved`);
  const lines = [
    `  transfers: ${record.accepted.size} accepted, ${record.completed.size} answered 201; lost ${lost.length}, doubled ${doubled}`,
    `  transfers in the ledger, by shard: ${perShard.map((count, shard) => `shard ${shard} ${count}`).join(', ')}`,
    `  payouts: ${record.payouts.size}, every case final`,
    `  dead letters: ${parked}`,
    `  reconciliation on every shard (every tenant: balances equal their lines, entries balance, records match): ${reconciliation.status}`,
    `  the resumed writer: ${resumed.fenced} batch(es) refused by its partitions' newer epochs; commands it decided: ` +
      `${frozen?.decidedBefore ?? 0} before the freeze, ${frozen?.decidedAfterResuming ?? 0} once resumed, ${resumed.decided} at the end`,
    `  retried system failures: ${[...record.retried].map(([kind, count]) => `${kind} ${count}`).join(', ') || 'none'}; refused: ${[...record.refused].map(([code, count]) => `${code} ${count}`).join(', ') || 'none'}`,
  ];
  return { problems, lines };
}

/** A ledger instance's commands decided (each committed with its result; repeats of decided commands left out) and batches fenced. */
async function writerCounters(writer: ServiceInstance): Promise<{ decided: number; fenced: number }> {
  const text = await (await fetch(`http://127.0.0.1:${writer.ports.port}/metrics`)).text();
  const lines = text.split('\n');
  const value = (line: string): number => Number(line.split(' ').at(-1));
  const decided = lines
    .filter((line) => line.startsWith('ledger_commands_total{') && !line.includes('outcome="duplicate"'))
    .reduce((sum, line) => sum + value(line), 0);
  const fenced = lines.find((line) => line.startsWith('ledger_batches_fenced_total'));
  return { decided, fenced: fenced ? value(fenced) : 0 };
}

/** Tenants set up beyond TENANTS at most, looking for one on a shard none of the others is on. */
const EXTRA_TENANTS_MAX = 8;

/**
 * TENANTS tenants, with one on each shard when TENANTS allows: a tenant's shard follows a hash of
 * its id, and a shard without one would take no load, its failover testing nothing. A tenant
 * that would take the last place an uncovered shard needs is set up but left without load.
 */
async function setupTenants(baseUrl: string, ledger: LedgerShardReads): Promise<ChaosTenant[]> {
  const chosen: Array<{ tenant: ChaosTenant; shard: number }> = [];
  for (let index = 1; chosen.length < TENANTS; index++) {
    const tenant = await setupTenant(baseUrl, devSecrets().secrets.SYSTEM_API_KEY, index);
    // Its deposits went through the ledger, which placed it first.
    const shard = await until(
      `tenant ${tenant.tenantId} to be placed`,
      async () => (await ledger.placements([tenant.tenantId])).get(tenant.tenantId)?.shard,
    );
    const uncovered = Array.from({ length: ledger.count }, (_, each) => each).filter((each) => !chosen.some((one) => one.shard === each));
    const leavesRoom = TENANTS - chosen.length - 1 >= uncovered.length;
    if (uncovered.includes(shard) || leavesRoom || index > TENANTS + EXTRA_TENANTS_MAX) chosen.push({ tenant, shard });
  }
  const byShard = Array.from({ length: ledger.count }, (_, shard) => chosen.filter((one) => one.shard === shard).length);
  say(`Tenants by ledger shard: ${byShard.map((count, shard) => `shard ${shard} ${count}`).join(', ')}`);
  return chosen.map((one) => one.tenant);
}

async function runFaults(context: ChaosContext): Promise<FrozenWriter | undefined> {
  const { cluster } = context;
  await pause(PAUSE_MS);
  say('Fault 1: one instance of each service killed');
  await killOneOfEach(context);
  say('Fault 2: a RabbitMQ node stopped and started');
  await bounceRabbitNode(cluster);
  say(`Fault 3: ledger shard ${FAILOVER_SHARD}'s primary killed`);
  await failOverLedgerShard(cluster, FAILOVER_SHARD);
  say('Fault 4: the ledger writer frozen past its hand-over');
  const frozen = await freezeLedgerWriter(context);
  await pause(PAUSE_MS);
  return frozen;
}

async function main(): Promise<void> {
  const missing = missingClusterPackages();
  if (missing.length > 0) throw new Error(`the cluster needs Debian's ${missing.join(', ')}`);
  const started = Date.now();
  const cluster = await startCluster({
    base: path.join(os.tmpdir(), 'wallet-chaos'),
    log: say,
    keepFolder: process.env.CHAOS_KEEP === '1',
  });
  const ledger = LedgerShardReads.open(cluster.postgres);
  const payments = createDb(cluster.postgres.services.url('wallet_payments'), { poolMax: 2 });
  try {
    const tenants = await setupTenants(`http://127.0.0.1:${cluster.publicPorts.gateway}`, ledger);
    say(`Load: ${tenants.length} tenants, ${WORKERS} workers each (nine transfers, then a payout requested and approved)`);
    const load = startLoad(tenants, WORKERS);
    const placed = await ledger.placements(tenants.map((tenant) => tenant.tenantId));
    const loaded = new Set([...placed.values()].map((placement) => placement.partition));
    const frozen = await runFaults({ cluster, ledger, loaded });
    await load.stop();
    // What did not settle is reported with the rest rather than ending the run without a summary.
    const unsettled = await settle(payments, load.record).then(
      () => null,
      (error: unknown) => String(error),
    );
    const verdict = await verify(cluster, { ledger, payments }, load.record, frozen);
    if (unsettled) verdict.problems.push(unsettled);
    say('');
    say(`Cluster fault run (${Math.round((Date.now() - started) / 1000)} s; 2-core VM, everything on one machine):`);
    for (const [what, ms] of timings) say(`  ${what}: ${(ms / 1000).toFixed(1)} s`);
    for (const line of verdict.lines) say(line);
    say(verdict.problems.length === 0 ? 'PASSED' : `FAILED: ${verdict.problems.join('; ')}`);
    process.exitCode = verdict.problems.length === 0 ? 0 : 1;
  } finally {
    await ledger.destroy();
    await payments.destroy();
    await cluster.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
