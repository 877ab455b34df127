import { readdirSync, readFileSync } from 'node:fs';
import { isWalletApiError, type WalletClient } from '@wallet/sdk';
import { percentile, procStat } from './system';

/**
 * Signed transfers as load: a closed loop (a fixed number in flight) and an open loop (a rate
 * offered, latency measured from the moment each was due: no coordinated omission), with the
 * CPU, write calls and context switches each part of the system spent, read from /proc.
 */

export interface Wallet {
  id: string;
  ownerId: string;
}

interface Outcome {
  latencyMs: number;
  status: number | 'error';
  /** Open loop: when it was due, in ms from the start. */
  dueMs?: number;
}

export interface Figures {
  label: string;
  sent: number;
  seconds: number;
  acceptedPerSecond: number;
  completedPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  /** Every transfer's latency, ascending: percentiles over several loops pooled. */
  latencies: number[];
  refused: string;
  cpu: CpuShare[];
  machine: MachineShare;
}

/** How the machine's cores spent the workload, as shares of all of them. */
export interface MachineShare {
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

export interface CpuShare {
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

/** Which run's system the counters are of: its databases' prefix and the process that started its services. */
export interface MeasuredSystem {
  runId: string;
  systemPid: number | undefined;
}

/** Which part of the system a process is, from its command line; null for the rest of the machine. */
function processLabel(system: MeasuredSystem, pid: number, parentPid: number, cmdline: string, comm: string): string | null {
  if (pid === process.pid) return 'load generator';
  if (comm === 'postgres') return postgresLabel(system, cmdline);
  if (comm === 'beam.smp' || comm.startsWith('erl_child') || comm === 'epmd') return 'rabbitmq';
  if (comm === 'pg_autoctl') return 'pg_auto_failover';
  if (comm === 'haproxy') return 'haproxy';
  // Another system on the same machine (a paired run) is not ours.
  if (parentPid !== system.systemPid) return null;
  // The last bundle on the command line (the first may be the tracing preload, dist/telemetry.js), or the instance it names.
  const run = /dist\/(\w+)\.js(?:\s+--instance=(\w+))?\s*$/.exec(cmdline.trim());
  return run?.[2] ?? run?.[1] ?? null;
}

/**
 * A PostgreSQL process by what it works for. A backend's title is `postgres: [<cluster name>: ]<user> <database> <client>
 * <state>`: named by the service whose database it serves. Streaming to and replaying on a standby is replication's cost.
 */
function postgresLabel(system: MeasuredSystem, cmdline: string): string {
  if (/^postgres: (?:.*?: )?(?:walsender|walreceiver|startup)\b/.test(cmdline)) return 'pg:replication';
  const database = /^postgres: (?:.*?: )?\S+ (\S+) (?:\[local\]|\S+\(\d+\))/.exec(cmdline)?.[1];
  if (database === 'pg_auto_failover') return 'pg_auto_failover';
  const service = database?.startsWith(`${system.runId}_`) ? database.slice(system.runId.length + 1) : null;
  return service ? `pg:${service}` : 'pg:other';
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

/** Each process's counters by pid, under its label: deltas are taken per process, so one that ends inside a window takes only its own share with it. */
export type ProcessCounters = Map<string, Map<number, Counters>>;

/** CPU time, write calls and context switches so far of each part of the system, from /proc. */
export function processCounters(system: MeasuredSystem): ProcessCounters {
  const counters: ProcessCounters = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { comm, fields } = procStat(entry);
      const label = processLabel(
        system,
        Number(entry),
        Number(fields[1]),
        readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '),
        comm,
      );
      if (!label) continue;
      // /proc/<pid>/io's syscw counts write(2)-family calls, the ones libuv, PostgreSQL and Erlang use on sockets.
      const writes = Number(/^syscw:\s+(\d+)$/m.exec(readFileSync(`/proc/${entry}/io`, 'utf8'))?.[1] ?? 0);
      const processes = counters.get(label) ?? new Map<number, Counters>();
      // utime and stime are fields 14 and 15 of stat; fields[0] here is field 3.
      processes.set(Number(entry), {
        ticks: Number(fields[11]) + Number(fields[12]),
        systemTicks: Number(fields[12]),
        writes,
        switches: contextSwitches(entry),
      });
      counters.set(label, processes);
    } catch {
      // the process ended while being read
    }
  }
  return counters;
}

/** What a label's processes did between two readings: a process started since counts from zero, one ended since is not counted. */
function labelDelta(before: Map<number, Counters> | undefined, after: Map<number, Counters>): Counters {
  const delta: Counters = { ticks: 0, systemTicks: 0, writes: 0, switches: 0 };
  for (const [pid, now] of after) {
    const then = before?.get(pid);
    for (const key of Object.keys(delta) as Array<keyof Counters>) delta[key] += now[key] - (then?.[key] ?? 0);
  }
  return delta;
}

export function cpuPerTransfer(before: ProcessCounters, after: ProcessCounters, transfers: number): CpuShare[] {
  const perTransfer = (value: number): number => value / Math.max(1, transfers);
  return [...after]
    .map(([label, processes]) => {
      const delta = labelDelta(before.get(label), processes);
      return {
        process: label,
        msPerTransfer: (perTransfer(delta.ticks) * 1000) / CLOCK_TICKS_PER_SECOND,
        systemMsPerTransfer: (perTransfer(delta.systemTicks) * 1000) / CLOCK_TICKS_PER_SECOND,
        writesPerTransfer: perTransfer(delta.writes),
        switchesPerTransfer: perTransfer(delta.switches),
      };
    })
    .sort((a, b) => b.msPerTransfer - a.msPerTransfer);
}

/** A system's own processes: its services and its databases' backends (not the load generator, another system's backends or the broker both share). */
const isOwnProcess = (label: string): boolean => label !== 'load generator' && label !== 'pg:other' && label !== 'rabbitmq';

const QUIET_WINDOW_MS = 1_000;
/** Under a tenth of one core: the timers of a system at rest, not an outbox draining or a maintenance pass. */
const QUIET_SHARE_OF_A_CORE = 0.1;

/**
 * Waits until a system has worked off what a load left it (outbox drains, read models, maintenance passes): until its own
 * processes used under a tenth of a core over a second, or `maxMs` passed. Returns the seconds waited.
 */
export async function settle(system: MeasuredSystem, maxMs: number): Promise<number> {
  const started = performance.now();
  let before = processCounters(system);
  while (performance.now() - started < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const after = processCounters(system);
    const busyMs = cpuPerTransfer(before, after, 1)
      .filter((share) => isOwnProcess(share.process))
      .reduce((sum, share) => sum + share.msPerTransfer, 0);
    if (busyMs < QUIET_WINDOW_MS * QUIET_SHARE_OF_A_CORE) break;
    before = after;
  }
  return (performance.now() - started) / 1000;
}

function summarize(label: string, outcomes: Outcome[], seconds: number, cpu: CpuShare[], machine: MachineShare): Figures {
  const latencies = outcomes.map((outcome) => outcome.latencyMs).sort((a, b) => a - b);
  const completed = outcomes.filter((outcome) => outcome.status === 201).length;
  const accepted = outcomes.filter((outcome) => outcome.status === 201 || outcome.status === 202).length;
  const refusals = new Map<string, number>();
  for (const outcome of outcomes)
    if (outcome.status !== 201 && outcome.status !== 202)
      refusals.set(String(outcome.status), (refusals.get(String(outcome.status)) ?? 0) + 1);
  return {
    label,
    sent: outcomes.length,
    seconds,
    acceptedPerSecond: accepted / seconds,
    completedPerSecond: completed / seconds,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    p99: percentile(latencies, 0.99),
    latencies,
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

export interface LoadTarget {
  client: WalletClient;
  wallets: Wallet[];
  /** One receiving wallet for every transfer; null for random pairs. */
  hot: Wallet | null;
  system: MeasuredSystem;
}

export async function closedLoop(label: string, target: LoadTarget, options: { concurrency: number; transfers: number }): Promise<Figures> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const cpuBefore = processCounters(target.system);
  const machineBefore = machineTicks();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.transfers) {
        next += 1;
        const sent = performance.now();
        const status = await sendTransfer(target.client, transferBody(target.wallets, target.hot));
        outcomes.push({ latencyMs: performance.now() - sent, status });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return summarize(
    label,
    outcomes,
    seconds,
    cpuPerTransfer(cpuBefore, processCounters(target.system), outcomes.length),
    machineShare(machineBefore, machineTicks()),
  );
}

export async function openLoop(
  label: string,
  target: LoadTarget,
  options: { rate: number; seconds: number; timeline: boolean },
): Promise<Figures> {
  const outcomes: Promise<Outcome>[] = [];
  const total = Math.round(options.rate * options.seconds);
  const intervalMs = 1000 / options.rate;
  const cpuBefore = processCounters(target.system);
  const machineBefore = machineTicks();
  const started = performance.now();
  for (let index = 0; index < total; index += 1) {
    const due = started + index * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    outcomes.push(
      sendTransfer(target.client, transferBody(target.wallets, target.hot)).then((status) => ({
        latencyMs: performance.now() - due,
        status,
        dueMs: due - started,
      })),
    );
  }
  const settled = await Promise.all(outcomes);
  const cpu = cpuPerTransfer(cpuBefore, processCounters(target.system), settled.length);
  const machine = machineShare(machineBefore, machineTicks());
  if (options.timeline) printTimeline(label, settled);
  return summarize(label, settled, Math.max(options.seconds, (performance.now() - started) / 1000), cpu, machine);
}

/** The open loop's latency by the second its transfers were due, to tell steady queueing from stalls. */
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
    console.log(
      `    ${String(second).padStart(3)} s  ${String(latencies.length).padStart(5)} sent  ${at(0.5).padStart(6)} ${at(0.99).padStart(6)} ${at(1).padStart(6)}`,
    );
  }
}
