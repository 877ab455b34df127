import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * One running system for every browser suite of a jest run: the first suite to ask starts it
 * (`npm start`'s script, detached, its output in a log file), the others wait for its address, and
 * the global teardown stops it. Suites keep apart by tenant. Workers are separate processes, so
 * they meet in a directory named after the run: `mkdir` of its lock decides who starts it, and
 * `system.json` says where it listens once it is ready (or `failed` why it did not start).
 */

export interface SharedSystem {
  /** The system's process: `scripts/start.ts`, leader of its process group. */
  pid: number;
  /** The environment it runs with: ports, database URLs, the system key. */
  env: Record<string, string>;
  /** jest's main process: a system whose run has ended without its teardown is stopped by the next run. */
  runnerPid: number;
}

const DIR_PREFIX = 'wallet-browser-system-';
const WAIT_MS = 240_000;

function runDirectory(runId: string): string {
  return path.join(os.tmpdir(), `${DIR_PREFIX}${runId}`);
}

function readJson<Value>(file: string): Value | undefined {
  const text = readText(file);
  return text === undefined ? undefined : (JSON.parse(text) as Value);
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The run's system: started by `start` in this process when no other worker has started it,
 * else the one another worker started, once it is ready. `start` returns when the system answers.
 */
export async function sharedSystem(
  runId: string,
  start: (logFile: string) => Promise<Omit<SharedSystem, 'runnerPid'>>,
): Promise<SharedSystem> {
  const directory = runDirectory(runId);
  mkdirSync(directory, { recursive: true });
  const ready = path.join(directory, 'system.json');
  const failed = path.join(directory, 'failed');
  let leader = true;
  try {
    mkdirSync(path.join(directory, 'lock'));
  } catch {
    leader = false;
  }
  if (leader) {
    try {
      const system = { ...(await start(path.join(directory, 'system.log'))), runnerPid: Number(process.env.WALLET_TEST_RUNNER_PID) };
      writeFileSync(ready, JSON.stringify(system));
      return system;
    } catch (error) {
      writeFileSync(failed, (error as Error).message);
      throw error;
    }
  }
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const system = readJson<SharedSystem>(ready);
    if (system) return system;
    const why = readText(failed);
    if (why !== undefined) throw new Error(`the shared browser system did not start: ${why}`);
    if (Date.now() > deadline) throw new Error(`the shared browser system was not ready after ${WAIT_MS / 1000} s (${directory})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Stops a system's process group (SIGTERM: the services stop and drain), SIGKILL after 15 s. */
async function stopSystem(pid: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // Gone already.
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + 15_000;
  while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive(pid)) signal('SIGKILL');
}

/**
 * Stops the run's system (the global teardown), and any left by a run whose jest is gone: a
 * run killed before its teardown would otherwise leave five services running.
 */
export async function stopSharedSystems(runId: string): Promise<void> {
  let names: string[] = [];
  try {
    names = readdirSync(os.tmpdir()).filter((name) => name.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const directory = path.join(os.tmpdir(), name);
    const system = readJson<SharedSystem>(path.join(directory, 'system.json'));
    const ours = name === `${DIR_PREFIX}${runId}`;
    // Another run's: left alone while its jest lives, or while it is still starting (no system.json yet).
    if (!ours && (!system || alive(system.runnerPid))) continue;
    if (system && alive(system.pid)) await stopSystem(system.pid);
    rmSync(directory, { recursive: true, force: true });
  }
}
