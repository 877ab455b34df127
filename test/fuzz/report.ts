import type { TableChange } from './fuzz-system';
import type { FuzzRequest } from './generators';
import type { Answer, DefectLabel, Property } from './properties';

/** What a fuzz run found, and how it is printed: by the test when it fails, by `npm run fuzz` at the end. */

export interface FailureClass {
  property: Property;
  route: string;
  status: number;
  code: string;
  defect: DefectLabel;
  cause: string;
  mutations: string;
  reasons: string;
  count: number;
  firstCase: number;
  request: string;
  answer: string;
  changes?: TableChange[];
}

export interface FuzzReport {
  seed: number;
  casesPlanned: number;
  casesRun: number;
  durationMs: number;
  stoppedEarly: boolean;
  statuses: Record<string, number>;
  routesExercised: number;
  /** Routes no case got a 2xx from: the fuzz did not reach their handlers' success paths. */
  routesNeverSucceeded: string[];
  routesTotal: number;
  failures: FailureClass[];
  /** A refusal whose fingerprint changed once but not when sent again: most likely a late effect of an earlier success. */
  unconfirmedChanges: Array<{ caseIndex: number; route: string; changes: TableChange[] }>;
  /** Times the system did not go quiet within the settling deadline. */
  unsettled: number;
  /** Refusals whose state was compared (the others came while an earlier success was still landing). */
  refusalsChecked: number;
  /** Cases the harness itself failed on (a bug of the fuzz suite, not of the API). */
  harnessErrors: Array<{ caseIndex: number; message: string }>;
}

// ---- printing a request so it can be sent again -----------------------------------------------

function shortened(text: string, limit: number): string {
  const runs = text.replace(/(.)\1{39,}/gsu, (run, character: string) => `${character.repeat(3)}…(${[...run].length}×)`);
  return runs.length > limit ? `${runs.slice(0, limit)}…(${text.length} characters)` : runs;
}

/** Control characters, separators, BOMs and lone surrogates as `\\uXXXX`: what was sent, readable. */
function visible(text: string): string {
  let shown = '';
  for (const character of text) {
    const code = character.codePointAt(0) as number;
    const invisible =
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x2028 ||
      code === 0x2029 ||
      code === 0xfeff ||
      (code >= 0xd800 && code <= 0xdfff);
    shown += invisible ? `\\u${code.toString(16).padStart(4, '0')}` : character;
  }
  return shown;
}

export function describeRequest(request: FuzzRequest): string {
  const lines = [
    `${request.method} ${shortened(request.query === '' ? request.path : `${request.path}?${request.query}`, 300)}   [${request.listener} listener, credential: ${describeCredential(request)}]`,
  ];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`  ${name}: ${shortened(visible(value), 80)}`);
  if (request.body !== null) {
    const text = request.body.toString('utf8');
    const valid = Buffer.from(text, 'utf8').equals(request.body);
    lines.push(
      `  body (${request.body.length} bytes${valid ? '' : ', not valid UTF-8: shown as decoded'}): ${shortened(visible(text), 500)}`,
    );
  }
  return lines.join('\n');
}

function describeCredential(request: FuzzRequest): string {
  const { credential } = request;
  switch (credential.kind) {
    case 'hmac': {
      const changed = Object.entries(credential).filter(([key]) => key !== 'kind');
      return changed.length === 0
        ? 'signed (hmac)'
        : `signed (hmac) with ${changed.map(([key, value]) => `${key}=${shortened(JSON.stringify(value), 40)}`).join(', ')}`;
    }
    case 'other':
      return credential.label;
    default:
      return credential.kind;
  }
}

export function describeAnswer(answer: Answer): string {
  const logged =
    answer.serverError && answer.serverError.length > 400
      ? `${answer.serverError.slice(0, 150)} … ${answer.serverError.slice(-200)}`
      : answer.serverError;
  return `${answer.status} ${shortened(visible(answer.bodyText), 300)}${logged ? `\n  server log: ${logged}` : ''}`;
}

// ---- the report -----------------------------------------------------------------------------------

export function summaryOf(report: FuzzReport): string {
  const seconds = report.durationMs / 1000;
  const statuses = Object.entries(report.statuses)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  const failing = report.failures.reduce((total, failure) => total + failure.count, 0);
  return [
    `fuzz: seed ${report.seed}: ${report.casesRun} of ${report.casesPlanned} cases in ${seconds.toFixed(1)} s (${(report.casesRun / Math.max(seconds, 0.001)).toFixed(1)} per second)${report.stoppedEarly ? ', stopped at the time budget' : ''}`,
    `  routes exercised ${report.routesExercised} of ${report.routesTotal}; answers ${statuses}`,
    `  routes without a single 2xx: ${report.routesNeverSucceeded.length === 0 ? 'none' : report.routesNeverSucceeded.join(', ')}`,
    `  ${report.failures.length} failure classes (${failing} failing cases), ${report.harnessErrors.length} harness errors; state compared for ${report.refusalsChecked} refusals, ${report.unconfirmedChanges.length} changes not confirmed on replay; unsettled ${report.unsettled}`,
  ].join('\n');
}

/** The failure classes by defect of the issue, each with its routes: what the fixes of each defect must make pass. */
export function defectSummary(report: FuzzReport): string {
  const byDefect = new Map<string, FailureClass[]>();
  for (const failure of report.failures) byDefect.set(failure.defect.title, [...(byDefect.get(failure.defect.title) ?? []), failure]);
  return [...byDefect]
    .map(([title, failures]) => {
      const lines = failures.map(
        (failure) => `    ${failure.property}: ${failure.route} -> ${failure.status} ${failure.code}: ${failure.cause} (${failure.count}×)`,
      );
      return [`  ${title}:`, ...lines].join('\n');
    })
    .join('\n');
}

/** Classes shown with their request; every class is in the summary by defect. */
const DETAILED_CLASSES = 60;

export function failureReport(report: FuzzReport): string {
  const sections = report.failures.slice(0, DETAILED_CLASSES).map((failure, position) =>
    [
      `${position + 1}. [${failure.defect.title}] ${failure.property}: ${failure.route} -> ${failure.status} ${failure.code} (${failure.count}×)`,
      `   cause: ${failure.cause}`,
      `   mutations: ${failure.mutations}; the contract refuses it for: ${failure.reasons}`,
      ...(failure.changes
        ? [
            `   tables changed: ${failure.changes.map((change) => `${change.table} (${change.rowsBefore} -> ${change.rowsAfter} rows)`).join(', ')}`,
          ]
        : []),
      `   first at case ${failure.firstCase}: replay with FUZZ_SEED=${report.seed} FUZZ_CASES=${failure.firstCase + 1} npx jest test/fuzz`,
      failure.request
        .split('\n')
        .map((line) => `   ${line}`)
        .join('\n'),
      `   answer: ${failure.answer.split('\n').join('\n   ')}`,
    ].join('\n'),
  );
  const harness = report.harnessErrors.slice(0, 5).map((error) => `   case ${error.caseIndex}: ${error.message}`);
  const notes = report.unconfirmedChanges
    .slice(0, 10)
    .map((note) => `   case ${note.caseIndex} ${note.route}: ${note.changes.map((change) => change.table).join(', ')}`);
  return [
    summaryOf(report),
    `Failure classes by defect:\n${defectSummary(report)}`,
    `Each class with its first case${report.failures.length > DETAILED_CLASSES ? ` (the first ${DETAILED_CLASSES})` : ''}:`,
    ...sections,
    ...(harness.length > 0 ? [`the fuzz harness failed on ${report.harnessErrors.length} cases:`, ...harness] : []),
    ...(notes.length > 0 ? ['refusals whose state change did not repeat (late effects of earlier successes, most likely):', ...notes] : []),
  ].join('\n\n');
}
