import fc from 'fast-check';
import { changesBetween, type FuzzSystem, MONEY_TABLES, type Snapshot, type TableChange } from './fuzz-system';
import { caseArbitrary, type Draft, finalize, type FuzzOperation, type FuzzRequest, fuzzOperations, learn } from './generators';
import {
  type Answer,
  answerViolations,
  defectOf,
  mayRecordRefusal,
  type RefusalReason,
  refusalReasons,
  replaysOnKey,
  replayViolations,
  type Violation,
} from './properties';
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

function collect(
  collector: Collector,
  violation: Violation,
  request: FuzzRequest,
  answer: Answer,
  reasons: RefusalReason[],
  changes?: TableChange[],
): void {
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

function disallowedChanges(
  before: Snapshot,
  after: Snapshot,
  request: FuzzRequest,
  answer: Answer,
  reasons: RefusalReason[],
): TableChange[] {
  const changes = changesBetween(before, after);
  return mayRecordRefusal(request, answer, reasons) ? changes.filter((change) => MONEY_TABLES.has(change.table)) : changes;
}

/** The same draft sent again on a quiet system, with a fresh idempotency key (a replayed refusal would prove nothing). */
async function confirmChange(
  system: FuzzSystem,
  draft: Draft,
  index: number,
): Promise<{ request: FuzzRequest; answer: Answer; changes: TableChange[] } | null> {
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

/** One run: the cases in order, what they found, and the fingerprint refusals are compared with. */
class FuzzRun {
  private readonly collector: Collector = { classes: new Map() };
  private readonly statuses: Record<string, number> = {};
  private readonly exercised = new Set<string>();
  private readonly succeeded = new Set<string>();
  private readonly unconfirmedChanges: FuzzReport['unconfirmedChanges'] = [];
  private readonly harnessErrors: FuzzReport['harnessErrors'] = [];
  private readonly started = Date.now();
  private casesRun = 0;
  private unsettled = 0;
  private refusalsChecked = 0;
  private baseline: Snapshot = new Map();
  /**
   * After a success the system may still be moving (events, audit records): the baseline is then
   * stale, and is taken again, on a quiet system, before the next request the contract refuses.
   */
  private stale = true;

  constructor(
    private readonly system: FuzzSystem,
    private readonly options: FuzzOptions,
    private readonly operations: FuzzOperation[],
  ) {}

  async run(): Promise<FuzzReport> {
    let stoppedEarly = false;
    for (let index = 0; index < this.options.cases; index += 1) {
      if (this.options.budgetMs > 0 && Date.now() - this.started > this.options.budgetMs) {
        stoppedEarly = true;
        break;
      }
      try {
        await this.runCase(index);
      } catch (error) {
        // A fault of the harness itself (not an answer of the API): kept, and the run goes on.
        this.harnessErrors.push({ caseIndex: index, message: (error as Error).stack ?? String(error) });
        this.stale = true;
      }
      if (this.options.progress && (index + 1) % 1000 === 0) this.options.progress(this.progressLine(index + 1));
    }
    return this.report(stoppedEarly);
  }

  private async runCase(index: number): Promise<void> {
    const [draft] = fc.sample(caseArbitrary(this.operations, this.system.world, index), {
      seed: caseSeed(this.options.seed, index),
      numRuns: 1,
    }) as [Draft];
    const request = finalize(draft, this.system.world, index);
    const reasons = refusalReasons(request, this.system.world);
    if (this.stale && reasons.length > 0) await this.settle();
    const answer = await this.system.send(request);
    this.count(request, answer);
    for (const violation of answerViolations(answer, reasons)) collect(this.collector, violation, request, answer, reasons);
    if (replaysOnKey(request, answer)) await this.checkReplay(draft, request, answer, reasons);
    if (answer.status >= 400 && answer.status < 500) {
      if (!this.stale) await this.checkRefusalChangedNothing(draft, request, answer, reasons);
    } else if (answer.status < 200 || answer.status >= 300 || request.method !== 'GET') {
      // A success that changed something, or a failure that may have.
      this.stale = true;
    }
  }

  private count(request: FuzzRequest, answer: Answer): void {
    const route = `${request.method} ${request.operation.template}`;
    this.casesRun += 1;
    this.statuses[answer.status] = (this.statuses[answer.status] ?? 0) + 1;
    this.exercised.add(route);
    if (answer.status >= 200 && answer.status < 300) this.succeeded.add(route);
    learn(this.system.world, request, answer.status, parsed(answer.bodyText));
    this.options.trace?.(
      `${request.index} ${request.method} ${request.path}${request.query ? `?${request.query}` : ''} [${request.tags.join(',')}] -> ${answer.status} ${answer.bodyText.slice(0, 160)}`,
    );
  }

  /** The same bytes under the same Idempotency-Key (signed afresh): the first answer again, nothing new created. */
  private async checkReplay(draft: Draft, request: FuzzRequest, answer: Answer, reasons: RefusalReason[]): Promise<void> {
    const replay = await this.system.send(finalize(draft, this.system.world, request.index));
    for (const violation of replayViolations(answer, replay)) collect(this.collector, violation, request, replay, reasons);
  }

  /** A change is a failure only if the same request, sent again on a quiet system, changes state again. */
  private async checkRefusalChangedNothing(draft: Draft, request: FuzzRequest, answer: Answer, reasons: RefusalReason[]): Promise<void> {
    this.refusalsChecked += 1;
    const after = await this.system.snapshot();
    const changes = disallowedChanges(this.baseline, after, request, answer, reasons);
    if (changes.length === 0) {
      this.baseline = after;
      return;
    }
    const confirmed = await confirmChange(this.system, draft, request.index);
    if (confirmed)
      collect(
        this.collector,
        { property: 'refusal-changes-nothing', detail: 'changed state' },
        request,
        answer,
        reasons,
        confirmed.changes,
      );
    else this.unconfirmedChanges.push({ caseIndex: request.index, route: `${request.method} ${request.operation.template}`, changes });
    await this.settle();
  }

  private async settle(): Promise<void> {
    const result = await this.system.settle();
    if (!result.settled) this.unsettled += 1;
    this.baseline = result.snapshot;
    this.stale = false;
  }

  private progressLine(done: number): string {
    const seconds = (Date.now() - this.started) / 1000;
    return `fuzz: ${done} cases in ${seconds.toFixed(0)} s (${(done / seconds).toFixed(1)}/s), ${this.collector.classes.size} failure classes`;
  }

  private report(stoppedEarly: boolean): FuzzReport {
    const failures = [...this.collector.classes.values()].sort(
      (a, b) => (a.defect.defect ?? 99) - (b.defect.defect ?? 99) || a.property.localeCompare(b.property) || a.route.localeCompare(b.route),
    );
    return {
      seed: this.options.seed,
      casesPlanned: this.options.cases,
      casesRun: this.casesRun,
      durationMs: Date.now() - this.started,
      stoppedEarly,
      statuses: this.statuses,
      routesExercised: this.exercised.size,
      routesNeverSucceeded: this.operations
        .map((operation) => `${operation.method} ${operation.template}`)
        .filter((route) => !this.succeeded.has(route)),
      routesTotal: this.operations.length,
      failures,
      unconfirmedChanges: this.unconfirmedChanges,
      unsettled: this.unsettled,
      refusalsChecked: this.refusalsChecked,
      harnessErrors: this.harnessErrors,
    };
  }
}

export async function runFuzz(system: FuzzSystem, options: FuzzOptions): Promise<FuzzReport> {
  const operations = fuzzOperations().filter((operation) => !options.routes || options.routes.test(operation.template));
  if (operations.length === 0) throw new Error(`no route matches ${options.routes}`);
  return new FuzzRun(system, options, operations).run();
}
