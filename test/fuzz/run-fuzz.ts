import fc from 'fast-check';
import { changesBetween, type FuzzSystem, MONEY_TABLES, type Snapshot, type TableChange } from './fuzz-system';
import { caseArbitrary, type Draft, finalize, type FuzzOperation, type FuzzRequest, fuzzOperations, learn } from './generators';
import { type Answer, answerViolations, defectOf, mayRecordRefusal, type RefusalReason, refusalReasons, type Violation } from './properties';
import { describeAnswer, describeRequest, type FailureClass, type FuzzReport } from './report';

/**
 * The fuzz loop: draw case i from the seed, send it, check the answer, and for a refusal check
 * that the fingerprint of every business table is what it was before. Failures are grouped into
 * classes (property, route, cause), each with its first case to replay.
 */

export interface FuzzOptions {
  seed: number;
  cases: number;
  /** Stop drawing new cases after this many ms (0: no limit); the report says so. */
  budgetMs: number;
  /** Only routes whose template matches. */
  routes?: RegExp;
  progress?: (line: string) => void;
  /** Told of every case and its answer (FUZZ_TRACE=1). */
  trace?: (line: string) => void;
}

export function caseSeed(seed: number, index: number): number {
  return (seed ^ Math.imul(index + 1, 0x9e3779b1)) | 0;
}

// ---- grouping -----------------------------------------------------------------------------------

function errorCode(answer: Answer): string {
  try {
    return (JSON.parse(answer.bodyText) as { error?: { code?: string } }).error?.code ?? '-';
  } catch {
    return '-';
  }
}

/** A server message with its values taken out, so one cause is one class: for SQL, the database's words after the statement. */
function causeOf(violation: Violation, answer: Answer, changes: TableChange[] | undefined): string {
  if (violation.property === 'refusal-changes-nothing') return `changed ${(changes ?? []).map((change) => change.table).join(', ')}`;
  if (violation.property === 'no-5xx') {
    const message = answer.serverError ?? violation.detail;
    const service = /^(\w+): /.exec(message)?.[0] ?? '';
    const statement = message.lastIndexOf(' - ');
    const cause = statement >= 0 ? service + message.slice(statement + 3) : message;
    return cause
      .replace(/param '[^']*'/g, "param '…'")
      .replace(/\b[a-z]{1,4}_[0-9A-Za-z]{6,}\b/g, '<id>')
      .replace(/\d{5,}/g, 'N');
  }
  return violation.detail.replace(/^\d+ /, '');
}

interface Collector {
  classes: Map<string, FailureClass>;
}

function collect(collector: Collector, violation: Violation, request: FuzzRequest, answer: Answer, reasons: RefusalReason[], changes?: TableChange[]): void {
  const defect = defectOf(violation, request, reasons, answer);
  const route = `${request.method} ${request.operation.template}`;
  const cause = causeOf(violation, answer, changes);
  const code = errorCode(answer);
  const key = [violation.property, route, answer.status, code, cause, violation.property === 'no-5xx' ? '' : reasons.join(',')].join('|');
  const existing = collector.classes.get(key);
  if (existing) {
    existing.count += 1;
    return;
  }
  collector.classes.set(key, {
    property: violation.property,
    route,
    status: answer.status,
    code,
    defect,
    cause,
    mutations: request.tags.join(', ') || 'none (a valid-ish request)',
    reasons: reasons.join(', ') || 'none',
    count: 1,
    firstCase: request.index,
    request: describeRequest(request),
    answer: describeAnswer(answer),
    ...(changes ? { changes } : {}),
  });
}

// ---- the loop -------------------------------------------------------------------------------------

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function disallowedChanges(before: Snapshot, after: Snapshot, request: FuzzRequest, answer: Answer, reasons: RefusalReason[]): TableChange[] {
  const changes = changesBetween(before, after);
  return mayRecordRefusal(request, answer, reasons) ? changes.filter((change) => MONEY_TABLES.has(change.table)) : changes;
}

/** The same draft sent again on a quiet system, with a fresh idempotency key (a replayed refusal would prove nothing). */
async function confirmChange(system: FuzzSystem, draft: Draft, index: number): Promise<{ request: FuzzRequest; answer: Answer; changes: TableChange[] } | null> {
  const { snapshot: before } = await system.settle();
  const key = draft.headers['idempotency-key'];
  const again: Draft = { ...draft, headers: key ? { ...draft.headers, 'idempotency-key': `${key}-again` } : draft.headers };
  const request = finalize(again, system.world, index);
  const reasons = refusalReasons(request, system.world);
  const answer = await system.send(request);
  if (answer.status < 400 || answer.status >= 500) return null;
  const changes = disallowedChanges(before, await system.snapshot(), request, answer, reasons);
  return changes.length > 0 ? { request, answer, changes } : null;
}

export async function runFuzz(system: FuzzSystem, options: FuzzOptions): Promise<FuzzReport> {
  const operations: FuzzOperation[] = fuzzOperations().filter((operation) => !options.routes || options.routes.test(operation.template));
  if (operations.length === 0) throw new Error(`no route matches ${options.routes}`);
  const collector: Collector = { classes: new Map() };
  const statuses: Record<string, number> = {};
  const exercised = new Set<string>();
  const succeeded = new Set<string>();
  const unconfirmedChanges: FuzzReport['unconfirmedChanges'] = [];
  let unsettled = 0;
  const started = Date.now();
  let stoppedEarly = false;
  let casesRun = 0;

  const settle = async (): Promise<Snapshot> => {
    const result = await system.settle();
    if (!result.settled) unsettled += 1;
    return result.snapshot;
  };
  let baseline = await settle();
  // After a success the system may still be moving (events, audit records): the baseline is then
  // stale, and is taken again, on a quiet system, before the next request the contract refuses.
  let stale = false;
  let refusalsChecked = 0;

  for (let index = 0; index < options.cases; index += 1) {
    if (options.budgetMs > 0 && Date.now() - started > options.budgetMs) {
      stoppedEarly = true;
      break;
    }
    const [draft] = fc.sample(caseArbitrary(operations, system.world, index), { seed: caseSeed(options.seed, index), numRuns: 1 }) as [Draft];
    if (stale) {
      const probe = finalize(draft, system.world, index);
      if (refusalReasons(probe, system.world).length > 0) {
        baseline = await settle();
        stale = false;
      }
    }
    const request = finalize(draft, system.world, index);
    const reasons = refusalReasons(request, system.world);
    const answer = await system.send(request);
    casesRun += 1;
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    exercised.add(`${request.method} ${request.operation.template}`);
    if (answer.status >= 200 && answer.status < 300) succeeded.add(`${request.method} ${request.operation.template}`);
    learn(system.world, request, answer.status, parsed(answer.bodyText));
    if (options.trace) options.trace(`${index} ${request.method} ${request.path}${request.query ? `?${request.query}` : ''} [${request.tags.join(',')}] -> ${answer.status} ${answer.bodyText.slice(0, 160)}`);
    for (const violation of answerViolations(answer, reasons)) collect(collector, violation, request, answer, reasons);

    if (answer.status >= 400 && answer.status < 500) {
      if (!stale) {
        refusalsChecked += 1;
        const after = await system.snapshot();
        const changes = disallowedChanges(baseline, after, request, answer, reasons);
        if (changes.length === 0) {
          baseline = after;
        } else {
          const confirmed = await confirmChange(system, draft, index);
          if (confirmed) collect(collector, { property: 'refusal-changes-nothing', detail: 'changed state' }, request, answer, reasons, confirmed.changes);
          else unconfirmedChanges.push({ caseIndex: index, route: `${request.method} ${request.operation.template}`, changes });
          baseline = await settle();
        }
      }
    } else if (answer.status < 200 || answer.status >= 300 || request.method !== 'GET') {
      // A success that changed something, or a failure that may have.
      stale = true;
    }
    if (options.progress && (index + 1) % 1000 === 0) {
      const seconds = (Date.now() - started) / 1000;
      options.progress(`fuzz: ${index + 1} cases in ${seconds.toFixed(0)} s (${((index + 1) / seconds).toFixed(1)}/s), ${collector.classes.size} failure classes`);
    }
  }

  const failures = [...collector.classes.values()].sort((a, b) => (a.defect.defect ?? 99) - (b.defect.defect ?? 99) || a.property.localeCompare(b.property) || a.route.localeCompare(b.route));
  return {
    seed: options.seed,
    casesPlanned: options.cases,
    casesRun,
    durationMs: Date.now() - started,
    stoppedEarly,
    statuses,
    routesExercised: exercised.size,
    routesNeverSucceeded: operations.map((operation) => `${operation.method} ${operation.template}`).filter((route) => !succeeded.has(route)),
    routesTotal: operations.length,
    failures,
    unconfirmedChanges,
    unsettled,
    refusalsChecked,
  };
}
