import { writeFileSync } from 'node:fs';
import { startFuzzSystem, type FuzzSystem } from './fuzz-system';
import { failureReport, summaryOf } from './report';
import { runFuzz } from './run-fuzz';

// Every service logs through pino; its error lines go to the capture that names each 500's cause.
jest.mock('pino', () => {
  const actual = jest.requireActual('pino');
  const { serverLogSink } = jest.requireActual('./server-errors');
  const sink = serverLogSink();
  const wrapped = Object.assign((options: unknown, stream?: unknown) => actual(options, stream ?? sink), actual);
  wrapped.default = wrapped;
  wrapped.pino = wrapped;
  return wrapped;
});

/**
 * The public API under seeded, mutated requests (test/fuzz/generators.ts), against the whole
 * system in-process. Properties: no answer is 5xx; every 4xx carries the error body with a known
 * code and its status; what the contract refuses is refused; a refusal changes nothing.
 *
 * `npm test` runs a bounded number of cases within a time budget from one fixed seed;
 * `npm run fuzz` runs many more (FUZZ_CASES, default 100,000). FUZZ_SEED and FUZZ_CASES replay a
 * run; FUZZ_ROUTES (a regular expression over route templates) narrows it.
 */
const explicitCases = process.env.FUZZ_CASES !== undefined;
const CASES = Number(process.env.FUZZ_CASES ?? 2_000);
/** `npm test` replays one seed, so a red run is the code's doing, not the draw's; `npm run fuzz` draws a fresh one. */
const CI_SEED = 20_261_125;
const SEED = Number(process.env.FUZZ_SEED ?? (explicitCases ? Math.floor(Math.random() * 2 ** 31) : CI_SEED));
/** The CI budget: the cases that fit in it run, whatever FUZZ_CASES would allow. */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? (explicitCases ? 0 : 45_000));
const ROUTES = process.env.FUZZ_ROUTES ? new RegExp(process.env.FUZZ_ROUTES) : undefined;
const TIMEOUT_MS = BUDGET_MS > 0 ? BUDGET_MS + 90_000 : CASES * 1_000 + 120_000;

let system: FuzzSystem;

beforeAll(async () => {
  system = await startFuzzSystem('fuzz');
}, 180_000);

afterAll(async () => {
  await system?.close();
});

it(
  `answers every fuzzed request without a 5xx, with well-formed refusals that change nothing (seed ${SEED})`,
  async () => {
    const report = await runFuzz(system, {
      seed: SEED,
      cases: CASES,
      budgetMs: BUDGET_MS,
      routes: ROUTES,
      progress: (line) => process.stderr.write(`${line}\n`),
      trace: process.env.FUZZ_TRACE ? (line) => process.stderr.write(`${line}\n`) : undefined,
    });
    if (process.env.FUZZ_REPORT_FILE) writeFileSync(process.env.FUZZ_REPORT_FILE, JSON.stringify(report, null, 2));
    process.stderr.write(`${summaryOf(report)}\n`);
    if (report.failures.length > 0 || report.harnessErrors.length > 0) throw new Error(failureReport(report));
  },
  TIMEOUT_MS,
);
