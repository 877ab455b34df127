/**
 * The long fuzz run: the suite of test/fuzz with many cases and no time budget, against the
 * whole system in-process on fresh databases (jest's global setup finds PostgreSQL and RabbitMQ
 * as the tests do). Prints the cases run, the time taken and every failure class.
 *
 *   npm run fuzz                    FUZZ_CASES=100000 FUZZ_SEED=<random> FUZZ_ROUTES=<regex over route templates>
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defectSummary, type FuzzReport, summaryOf } from '../test/fuzz/report';

const ROOT = path.resolve(__dirname, '..');
const CASES = Number(process.env.FUZZ_CASES ?? 100_000);
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

async function main(): Promise<number> {
  if (!Number.isInteger(CASES) || CASES < 1) throw new Error(`FUZZ_CASES must be a positive integer, not ${process.env.FUZZ_CASES}`);
  const directory = mkdtempSync(path.join(os.tmpdir(), 'wallet-fuzz-'));
  const reportFile = path.join(directory, 'report.json');
  console.log(`fuzz: ${CASES} cases, seed ${SEED}${process.env.FUZZ_ROUTES ? `, routes matching ${process.env.FUZZ_ROUTES}` : ''}`);
  const jest = spawn(
    process.execPath,
    [require.resolve('jest/bin/jest'), 'test/fuzz/api-fuzz.test.ts', '--maxWorkers=1', '--verbose=false'],
    {
      cwd: ROOT,
      env: { ...process.env, FUZZ_CASES: String(CASES), FUZZ_SEED: String(SEED), FUZZ_BUDGET_MS: '0', FUZZ_REPORT_FILE: reportFile },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exitCode = await new Promise<number>((resolve) => jest.once('exit', (code) => resolve(code ?? 1)));
  try {
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as FuzzReport;
    console.log(`\n${summaryOf(report)}`);
    if (report.failures.length > 0) console.log(`failure classes by defect (details in jest's output above):\n${defectSummary(report)}`);
    else console.log('no failures');
  } catch {
    console.log(`fuzz: the run wrote no report (jest exited with ${exitCode}); see its output above`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
