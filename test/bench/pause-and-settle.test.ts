import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childPids, procStat, signalProcessAndChildren } from '../../scripts/lib/system';
import { settle } from '../../scripts/lib/transfer-load';

/**
 * bench:scale measures each system while the other is paused, after the other has worked off its
 * last load: the two share the VM's cores. Real processes, read back from /proc.
 */

/** stat's field 3: R running, S sleeping, T stopped. */
const stateOf = (pid: number): string => procStat(pid).fields[0] ?? '?';

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const started: ChildProcess[] = [];
const directory = mkdtempSync(path.join(os.tmpdir(), 'settle-'));
afterAll(() => {
  for (const child of started) if (child.pid !== undefined) signalProcessAndChildren(child.pid, 'SIGKILL');
  rmSync(directory, { recursive: true, force: true });
});

/** A stand-in for scripts/start.ts: a shell whose children are "services" (a bundle under dist/, as the real ones). */
async function startScript(serviceSource: string, services: number): Promise<number> {
  const bundle = path.join(directory, 'dist', `service${started.length}.js`);
  mkdirSync(path.dirname(bundle), { recursive: true });
  writeFileSync(bundle, serviceSource);
  const runs = Array.from({ length: services }, () => `"${process.execPath}" "${bundle}" &`).join(' ');
  const child = spawn('sh', ['-c', `${runs} wait`], { stdio: 'ignore' });
  started.push(child);
  const pid = child.pid as number;
  await until(() => childPids(pid).length === services);
  return pid;
}

test('pausing a system stops its start script and every service; resuming lets them go on', async () => {
  const pid = await startScript('setInterval(() => {}, 1000);', 2);
  const all = [pid, ...childPids(pid)];

  signalProcessAndChildren(pid, 'SIGSTOP');
  await until(() => all.every((each) => stateOf(each) === 'T'));
  signalProcessAndChildren(pid, 'SIGCONT');
  await until(() => all.every((each) => stateOf(each) !== 'T'));

  expect(all.map(stateOf).filter((state) => state === 'T')).toEqual([]);
});

test('settle waits while a service is busy and returns within a second or two of it going quiet', async () => {
  // Busy for 2.5 s, then at rest.
  const pid = await startScript('const end = Date.now() + 2500; while (Date.now() < end) {} setInterval(() => {}, 1000);', 1);

  const busy = await settle({ runId: 'settle-test', systemPid: pid }, 20_000);
  const quiet = await settle({ runId: 'settle-test', systemPid: pid }, 20_000);

  expect(busy).toBeGreaterThanOrEqual(2);
  expect(busy).toBeLessThan(6);
  expect(quiet).toBeLessThan(1.5);
}, 30_000);
