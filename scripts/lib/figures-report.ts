import os from 'node:os';
import { calibrationMs } from './system';
import type { CpuShare, Figures } from './transfer-load';

const percent = (share: number): string => `${(share * 100).toFixed(0)} %`;

/** One line per workload: its label, then `total` and each part's share of `figure`, the largest first when `sorted`. */
function perPart(results: readonly Figures[], figure: (share: CpuShare) => number, digits: number, sorted: boolean): string[] {
  return results.map((row) => {
    const shares = sorted ? [...row.cpu].sort((a, b) => figure(b) - figure(a)) : row.cpu;
    const total = shares.reduce((sum, share) => sum + figure(share), 0);
    const parts = shares.map((share) => `${share.process} ${figure(share).toFixed(digits)}`).join(', ');
    return `  ${row.label.padEnd(32)} total ${total.toFixed(digits)}: ${parts}`;
  });
}

/** A benchmark's figures as printed lines: rates and latencies, the machine's cores, then what each part of the system spent per transfer. */
export function describeFigures(results: readonly Figures[], calibrationBefore: number): string[] {
  const cores = os.cpus().length;
  const lines = ['', '  workload                          sent  accepted/s  completed/s   p50 ms   p95 ms   p99 ms  other answers'];
  for (const row of results) {
    const rates = `${row.acceptedPerSecond.toFixed(0).padStart(11)} ${row.completedPerSecond.toFixed(0).padStart(12)}`;
    const latency = [row.p50, row.p95, row.p99].map((value) => value.toFixed(1).padStart(8)).join(' ');
    lines.push(`  ${row.label.padEnd(32)} ${String(row.sent).padStart(5)} ${rates} ${latency}  ${row.refused}`);
  }
  lines.push(
    '',
    `  calibration: 64 MiB of SHA-256 took ${calibrationBefore.toFixed(0)} ms before the workloads and ${calibrationMs().toFixed(0)} ms after (a slower machine takes longer)`,
    `  the machine's ${cores} cores during each workload (from /proc/stat): busy, idle, and stolen by the hypervisor for other guests`,
  );
  for (const row of results) {
    const { busy, idle, stolen } = row.machine;
    lines.push(`  ${row.label.padEnd(32)} busy ${percent(busy)}, idle ${percent(idle)}, stolen ${percent(stolen)}`);
  }
  lines.push(`  CPU per transfer (ms, user + system, from /proc; ${cores} cores give ${cores * 1000} ms of CPU per second)`);
  lines.push(...perPart(results, (share) => share.msPerTransfer, 2, false));
  lines.push('  of which in the kernel (system time)');
  lines.push(...perPart(results, (share) => share.systemMsPerTransfer, 2, false));
  // Machine-independent where CPU time is not: what a change does to them shows in one run.
  lines.push('  Write system calls per transfer (from /proc/<pid>/io)');
  lines.push(...perPart(results, (share) => share.writesPerTransfer, 1, true));
  lines.push('  Context switches per transfer (every thread, voluntary and preempted, from /proc/<pid>/task)');
  lines.push(...perPart(results, (share) => share.switchesPerTransfer, 1, true));
  return lines;
}
