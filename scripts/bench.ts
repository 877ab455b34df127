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
 *                        BENCH_STORAGE=1 (after the workloads: every database's bytes per transfer, after a VACUUM)
 *
 * After the figures it prints, per transfer in each workload, the CPU time each part of the
 * system (each service, PostgreSQL, RabbitMQ, this load generator) used, its write system calls
 * and its context switches, read from /proc.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { LedgerPostV1 } from '@wallet/contracts';
import { DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL, ensureDatabase, LedgerCommandClient } from '@wallet/kit';
import { createTestVhost, dropRunVhosts } from '@wallet/kit/testing';
import { type FetchLike, isWalletApiError, WalletClient } from '@wallet/sdk';
import { Pool } from 'undici';
import { databaseSize, formatStorageReport } from './lib/storage-report';

const ROOT = path.resolve(__dirname, '..');
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
const SERVICES = ['gateway', 'identity', 'ledger', 'payments', 'treasury'];

const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const amqpServerUrl = process.env.AMQP_URL ?? DEFAULT_AMQP_URL;
const runId = `bench${Date.now().toString(36)}`;
const SYSTEM_KEY = `sys_bench_${randomUUID()}`;

function databaseUrl(name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${runId}_${name}`;
  return url.toString();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * The SDK's transport over one undici Pool: the load generator shares the machine with the
 * system it measures, and the global fetch's web streams cost it about as much CPU per request
 * as the gateway spends.
 */
function pooledFetch(pool: Pool): FetchLike {
  return async (url, init) => {
    const answer = await pool.request({ path: `${url.pathname}${url.search}`, method: init.method as 'POST', headers: init.headers, body: init.body, signal: init.signal });
    const text = await answer.body.text();
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const each of value) headers.append(name, each);
      else if (value !== undefined) headers.set(name, value);
    }
    return { status: answer.statusCode, headers, text: () => Promise.resolve(text) };
  };
}

/**
 * The machine's speed at the moment: milliseconds this process takes for a fixed amount of
 * hashing. A shared VM's speed drifts between runs; figures of two runs compare only when
 * their calibrations do.
 */
function calibrationMs(): number {
  const block = Buffer.alloc(1 << 20, 7);
  const started = performance.now();
  for (let round = 0; round < 64; round += 1) createHash('sha256').update(block).digest();
  return performance.now() - started;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

interface Wallet {
  id: string;
  ownerId: string;
}

interface Outcome {
  latencyMs: number;
  status: number | 'error';
  /** Open loop: when it was due, in ms from the start. */
  dueMs?: number;
}

interface Figures {
  label: string;
  sent: number;
  seconds: number;
  acceptedPerSecond: number;
  completedPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  refused: string;
  cpu: CpuShare[];
  machine: MachineShare;
}

/** How the machine's cores spent the workload, as shares of all of them. */
interface MachineShare {
  busy: number;
  idle: number;
  /** Time the hypervisor ran another guest on a core this VM wanted: the VM was that much smaller. */
  stolen: number;
}

/** The machine's CPU time so far, in clock ticks, from the first line of /proc/stat. */
function machineTicks(): { busy: number; idle: number; stolen: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, stolen: steal };
}

function machineShare(before: ReturnType<typeof machineTicks>, after: ReturnType<typeof machineTicks>): MachineShare {
  const busy = after.busy - before.busy;
  const idle = after.idle - before.idle;
  const stolen = after.stolen - before.stolen;
  const total = Math.max(1, busy + idle + stolen);
  return { busy: busy / total, idle: idle / total, stolen: stolen / total };
}

interface CpuShare {
  process: string;
  msPerTransfer: number;
  /** The part of msPerTransfer spent in the kernel (system calls, the network stack, page faults). */
  systemMsPerTransfer: number;
  /** write(2)-family calls (sockets and files): each hands data to another process or the disk. */
  writesPerTransfer: number;
  /** Times a thread of the process stopped running (it waited, or was preempted): each costs a wake-up. */
  switchesPerTransfer: number;
}

const CLOCK_TICKS_PER_SECOND = 100;

interface Counters {
  /** user + system CPU, in clock ticks */
  ticks: number;
  systemTicks: number;
  writes: number;
  switches: number;
}

/** The process that runs this benchmark's system (scripts/start.ts): its children are the services measured. */
let systemPid: number | undefined;

/** Which part of the system a process is, from its command line; null for the rest of the machine. */
function processLabel(pid: number, parentPid: number, cmdline: string, comm: string): string | null {
  if (pid === process.pid) return 'load generator';
  if (comm === 'postgres') {
    // A backend's title is `postgres: 15/main: <user> <database> <client> <state>`: named by the service whose database it serves.
    const database = /^postgres: [^:]+: \S+ (\S+)/.exec(cmdline)?.[1];
    const service = database?.startsWith(`${runId}_`) ? database.slice(runId.length + 1) : null;
    return service ? `pg:${service}` : 'pg:other';
  }
  if (comm === 'beam.smp' || comm.startsWith('erl_child') || comm === 'epmd') return 'rabbitmq';
  // Another system on the same machine (a paired run) is not ours.
  if (parentPid !== systemPid) return null;
  const service = /dist\/(\w+)\.js/.exec(cmdline)?.[1];
  return service ?? null;
}

/** Context switches of every thread of a process, from /proc/<pid>/task/<tid>/status. */
function contextSwitches(pid: string): number {
  let switches = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
    for (const match of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) switches += Number(match[1]);
  }
  return switches;
}

/** CPU time, write calls and context switches so far of each part of the system, from /proc. */
function processCounters(): Map<string, Counters> {
  const counters = new Map<string, Counters>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[1] is stat's field 4, the parent's pid.
      const label = processLabel(Number(entry), Number(fields[1]), readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '), comm);
      if (!label) continue;
      // /proc/<pid>/io's syscw counts write(2)-family calls, the ones libuv, PostgreSQL and Erlang use on sockets.
      const writes = Number(/^syscw:\s+(\d+)$/m.exec(readFileSync(`/proc/${entry}/io`, 'utf8'))?.[1] ?? 0);
      const total = counters.get(label) ?? { ticks: 0, systemTicks: 0, writes: 0, switches: 0 };
      // utime and stime are fields 14 and 15 of stat; fields[0] here is field 3.
      total.ticks += Number(fields[11]) + Number(fields[12]);
      total.systemTicks += Number(fields[12]);
      total.writes += writes;
      total.switches += contextSwitches(entry);
      counters.set(label, total);
    } catch {
      // the process ended while being read
    }
  }
  return counters;
}

function cpuPerTransfer(before: Map<string, Counters>, after: Map<string, Counters>, transfers: number): CpuShare[] {
  const perTransfer = (now: number, then: number | undefined): number => (now - (then ?? 0)) / Math.max(1, transfers);
  return [...after]
    .map(([label, now]) => {
      const then = before.get(label);
      return {
        process: label,
        msPerTransfer: (perTransfer(now.ticks, then?.ticks) * 1000) / CLOCK_TICKS_PER_SECOND,
        systemMsPerTransfer: (perTransfer(now.systemTicks, then?.systemTicks) * 1000) / CLOCK_TICKS_PER_SECOND,
        writesPerTransfer: perTransfer(now.writes, then?.writes),
        switchesPerTransfer: perTransfer(now.switches, then?.switches),
      };
    })
    .sort((a, b) => b.msPerTransfer - a.msPerTransfer);
}

function summarize(label: string, outcomes: Outcome[], seconds: number, cpu: CpuShare[], machine: MachineShare): Figures {
  const latencies = outcomes.map((outcome) => outcome.latencyMs).sort((a, b) => a - b);
  const completed = outcomes.filter((outcome) => outcome.status === 201).length;
  const accepted = outcomes.filter((outcome) => outcome.status === 201 || outcome.status === 202).length;
  const refusals = new Map<string, number>();
  for (const outcome of outcomes) if (outcome.status !== 201 && outcome.status !== 202) refusals.set(String(outcome.status), (refusals.get(String(outcome.status)) ?? 0) + 1);
  return {
    label,
    sent: outcomes.length,
    seconds,
    acceptedPerSecond: accepted / seconds,
    completedPerSecond: completed / seconds,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    p99: percentile(latencies, 0.99),
    refused: [...refusals].map(([status, count]) => `${status}x${count}`).join(' ') || '-',
    cpu,
    machine,
  };
}

/** Amounts small enough that funded wallets never run dry during a run. */
function transferBody(wallets: Wallet[], hot: Wallet | null): Record<string, string> {
  const from = wallets[Math.floor(Math.random() * wallets.length)] as Wallet;
  let to = hot ?? (wallets[Math.floor(Math.random() * wallets.length)] as Wallet);
  while (to.id === from.id) to = wallets[Math.floor(Math.random() * wallets.length)] as Wallet;
  return { fromWalletId: from.id, toWalletId: to.id, amount: `${1 + Math.floor(Math.random() * 9)}.00`, currencyCode: 'USD' };
}

async function sendTransfer(client: WalletClient, body: Record<string, string>): Promise<number | 'error'> {
  try {
    const answer = await client.request({ method: 'POST', path: '/v1/transfers', body }, { maxRetries: 0 });
    return answer.status;
  } catch (error) {
    return isWalletApiError(error) ? error.status : 'error';
  }
}

async function closedLoop(label: string, client: WalletClient, wallets: Wallet[], hot: Wallet | null): Promise<Figures> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const cpuBefore = processCounters();
  const machineBefore = machineTicks();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TRANSFERS) {
        next += 1;
        const sent = performance.now();
        const status = await sendTransfer(client, transferBody(wallets, hot));
        outcomes.push({ latencyMs: performance.now() - sent, status });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return summarize(label, outcomes, seconds, cpuPerTransfer(cpuBefore, processCounters(), outcomes.length), machineShare(machineBefore, machineTicks()));
}

async function openLoop(label: string, client: WalletClient, wallets: Wallet[], hot: Wallet | null): Promise<Figures> {
  const outcomes: Promise<Outcome>[] = [];
  const total = Math.round(RATE * SECONDS);
  const intervalMs = 1000 / RATE;
  const cpuBefore = processCounters();
  const machineBefore = machineTicks();
  const started = performance.now();
  for (let index = 0; index < total; index += 1) {
    const due = started + index * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    outcomes.push(sendTransfer(client, transferBody(wallets, hot)).then((status) => ({ latencyMs: performance.now() - due, status, dueMs: due - started })));
  }
  const settled = await Promise.all(outcomes);
  const cpu = cpuPerTransfer(cpuBefore, processCounters(), settled.length);
  const machine = machineShare(machineBefore, machineTicks());
  if (TIMELINE) printTimeline(label, settled);
  return summarize(label, settled, Math.max(SECONDS, (performance.now() - started) / 1000), cpu, machine);
}

/** BENCH_TIMELINE=1: the open loop's latency by the second its transfers were due, to tell steady queueing from stalls. */
function printTimeline(label: string, outcomes: Outcome[]): void {
  const seconds = new Map<number, number[]>();
  for (const outcome of outcomes) {
    const second = Math.floor((outcome.dueMs ?? 0) / 1000);
    const bucket = seconds.get(second);
    if (bucket) bucket.push(outcome.latencyMs);
    else seconds.set(second, [outcome.latencyMs]);
  }
  console.log(`  ${label}: latency by the second transfers were due (p50 / p99 / max ms)`);
  for (const [second, latencies] of [...seconds].sort((a, b) => a[0] - b[0])) {
    latencies.sort((a, b) => a - b);
    const at = (q: number) => (latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(0);
    console.log(`    ${String(second).padStart(3)} s  ${String(latencies.length).padStart(5)} sent  ${at(0.5).padStart(6)} ${at(0.99).padStart(6)} ${at(1).padStart(6)}`);
  }
}

async function waitForReady(url: string, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error('the system exited while starting');
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the system did not become ready within 90 s');
}

/** Bytes per completed transfer in each database, the system stopped (funding and set-up included: small beside the workloads). */
async function printStorage(): Promise<void> {
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
}

async function main(): Promise<void> {
  process.env.WALLET_TEST_DATABASE_URL = serverUrl;
  process.env.WALLET_TEST_AMQP_URL = amqpServerUrl;
  process.env.WALLET_TEST_RUN_ID = runId;
  const env: NodeJS.ProcessEnv = { ...process.env, SYSTEM_API_KEY: SYSTEM_KEY, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' };
  for (const service of SERVICES) {
    const url = databaseUrl(service);
    await ensureDatabase(url);
    env[`${service.toUpperCase()}_DATABASE_URL`] = url;
  }
  env.AMQP_URL = await createTestVhost('bench');
  for (const variable of ['GATEWAY_PORT', 'ADMIN_PORT', 'IDENTITY_PORT', 'LEDGER_PORT', 'PAYMENTS_PORT', 'TREASURY_PORT']) env[variable] = String(await freePort());
  for (const service of ['IDENTITY', 'LEDGER', 'PAYMENTS', 'TREASURY']) delete env[`${service}_URL`];
  // The benchmark measures the money path, not the limits in front of it.
  for (const bucket of ['KEY', 'TENANT', 'IP']) env[`GATEWAY_RATE_LIMIT_${bucket}_PER_SECOND`] = '0';

  const baseUrl = `http://127.0.0.1:${env.GATEWAY_PORT}`;
  const system = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  systemPid = system.pid;
  const results: Figures[] = [];
  let calibrationBefore = Number.NaN;
  // Enough connections for the open loop, whose requests in flight are not bounded.
  const pool = new Pool(baseUrl, { connections: Math.max(CONCURRENCY, 256), pipelining: 1 });
  try {
    await waitForReady(baseUrl, () => system.exitCode !== null);
    const platform = new WalletClient({ baseUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    const tenant = await platform.system.tenants.create({ name: 'Bench', slug: `bench-${runId}`, config: { defaultCurrency: 'USD', allowedCurrencies: ['USD'], maxTransactionAmount: '1000000' } });
    if (FEES) {
      const schedule = await platform.fees.tenantSchedules.create(tenant.id, { name: 'Bench', isDefault: true, platformCommissionBps: 2000 });
      await platform.fees.tenantSchedules.addRule(tenant.id, schedule.id, { transactionType: 'transfer', currencyCode: 'USD', flatFee: '0.05', percentageFee: '1', maxFee: '5.00' });
      await platform.fees.tenantSchedules.publish(tenant.id, schedule.id, { makeDefault: true });
    }
    const key = await platform.apiKeys.createForTenant(tenant.id, { name: 'bench', authMode: 'hmac', scopes: ['ledger:write', 'ledger:read'], environment: 'test' });
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
            { accountName: 'momo-float:bench', direction: 'DR', amount: '10000000.00', currencyCode: 'USD' },
            { accountName: `wallet:${wallet.ownerId}`, walletId: wallet.id, direction: 'CR', amount: '10000000.00', currencyCode: 'USD' },
          ],
        };
        return ledger.request(command, { timeoutMs: 60_000 });
      }),
    );
    await ledger.close();

    console.log('End-to-end benchmark: signed transfers through the gateway');
    console.log(`  machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
    console.log('  the five services as processes (scripts/start.ts), PostgreSQL, RabbitMQ and this load generator on the same machine');
    console.log(`  HMAC-signed POST /v1/transfers with a fresh Idempotency-Key each, ${WALLETS} funded USD wallets, rate limits off`);
    console.log(FEES ? '  default fee schedule: 0.05 + 1 % (at most 5.00) per transfer, 20 % platform commission' : '  no fee schedule (BENCH_FEES=1 for one)');
    console.log(`  closed loop: ${TRANSFERS} transfers, ${CONCURRENCY} in flight; open loop: ${RATE}/s offered for ${SECONDS} s`);

    const hot = wallets[0] as Wallet;
    const workloads: Record<string, () => Promise<Figures>> = {
      'closed-spread': () => closedLoop(`closed, spread, ${CONCURRENCY} in flight`, client, wallets, null),
      'closed-hot': () => closedLoop(`closed, hot receiver, ${CONCURRENCY} in flight`, client, wallets, hot),
      'open-spread': () => openLoop(`open, spread, ${RATE}/s`, client, wallets, null),
      'open-hot': () => openLoop(`open, hot receiver, ${RATE}/s`, client, wallets, hot),
    };
    await closedLoop('warm-up', client, wallets, null);
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
  } finally {
    await pool.close();
    const exited = new Promise((resolve) => system.once('exit', resolve));
    system.kill('SIGTERM');
    await exited;
  }

  console.log('');
  console.log('  workload                          sent  accepted/s  completed/s   p50 ms   p95 ms   p99 ms  other answers');
  for (const row of results) {
    console.log(
      `  ${row.label.padEnd(32)} ${String(row.sent).padStart(5)} ${row.acceptedPerSecond.toFixed(0).padStart(11)} ${row.completedPerSecond.toFixed(0).padStart(12)} ${row.p50.toFixed(1).padStart(8)} ${row.p95.toFixed(1).padStart(8)} ${row.p99.toFixed(1).padStart(8)}  ${row.refused}`,
    );
  }
  console.log('');
  console.log(`  calibration: 64 MiB of SHA-256 took ${calibrationBefore.toFixed(0)} ms before the workloads and ${calibrationMs().toFixed(0)} ms after (a slower machine takes longer)`);
  console.log(`  the machine's ${os.cpus().length} cores during each workload (from /proc/stat): busy, idle, and stolen by the hypervisor for other guests`);
  const percent = (share: number) => `${(share * 100).toFixed(0)} %`;
  for (const row of results) console.log(`  ${row.label.padEnd(32)} busy ${percent(row.machine.busy)}, idle ${percent(row.machine.idle)}, stolen ${percent(row.machine.stolen)}`);
  console.log(`  CPU per transfer (ms, user + system, from /proc; ${os.cpus().length} cores give ${os.cpus().length * 1000} ms of CPU per second)`);
  for (const row of results) {
    const total = row.cpu.reduce((sum, share) => sum + share.msPerTransfer, 0);
    console.log(`  ${row.label.padEnd(32)} total ${total.toFixed(2)}: ${row.cpu.map((share) => `${share.process} ${share.msPerTransfer.toFixed(2)}`).join(', ')}`);
  }
  console.log('  of which in the kernel (system time)');
  for (const row of results) {
    const total = row.cpu.reduce((sum, share) => sum + share.systemMsPerTransfer, 0);
    console.log(`  ${row.label.padEnd(32)} total ${total.toFixed(2)}: ${row.cpu.map((share) => `${share.process} ${share.systemMsPerTransfer.toFixed(2)}`).join(', ')}`);
  }
  // Machine-independent where CPU time is not: what a change does to them shows in one run.
  for (const [title, figure] of [
    ['Write system calls per transfer (from /proc/<pid>/io)', (share: CpuShare) => share.writesPerTransfer],
    ['Context switches per transfer (every thread, voluntary and preempted, from /proc/<pid>/task)', (share: CpuShare) => share.switchesPerTransfer],
  ] as const) {
    console.log(`  ${title}`);
    for (const row of results) {
      const shares = [...row.cpu].sort((a, b) => figure(b) - figure(a));
      const total = shares.reduce((sum, share) => sum + figure(share), 0);
      console.log(`  ${row.label.padEnd(32)} total ${total.toFixed(1)}: ${shares.map((share) => `${share.process} ${figure(share).toFixed(1)}`).join(', ')}`);
    }
  }

  if (STORAGE) await printStorage();

  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  for (const service of SERVICES) await admin.query(`DROP DATABASE IF EXISTS "${runId}_${service}" WITH (FORCE)`);
  await admin.end();
  await dropRunVhosts(amqpServerUrl, runId);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
