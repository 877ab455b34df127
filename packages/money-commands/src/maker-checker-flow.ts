import {
  CASE_TYPES,
  type CaseType,
  type JournalKind,
  type LedgerPostV1,
  type LedgerResultV1,
  type MakerCheckerStep,
  type EventType,
  eventTypeSchema,
  type MemberPrincipal,
  type OrgRole,
} from '@wallet/contracts';
import {
  AppError,
  auditActorFieldsOf,
  auditRecordMessage,
  currentContext,
  type Db,
  enqueueOutbox,
  type InternalClaims,
  prepared,
  type SqlStatement,
  type TenantDirectory,
  type Tx,
} from '@wallet/kit';
import { type ApprovalField, ApprovalPolicies, approvalRequirement } from './approval-policies';
import {
  answerDecision,
  CASE_AWAITS_LEDGER_SQL,
  caseDecisionStep,
  caseHoldReads,
  caseHoldStep,
  checkDeclaredActor,
  type DecisionAnswers,
  type DecisionResult,
  undecidableCaseError,
} from './maker-checker';
import { requirePermittedMember, type MemberDirectory } from './member-directory';
import {
  type Approval,
  type CommandAnswers,
  type CommandResult,
  commandPostings,
  commitAndAwait,
  type LedgerWait,
  MoneyCommand,
  type MoneyCommandDeps,
} from './money-command';
import {
  finishSteps,
  type MoneyRecord,
  type RecordScope,
  type RecordStep,
  type RecordTable,
  recordPosted,
  resultsOfSteps,
  scopedOutcomesOf,
} from './money-command-statement';
import { type AwaitedRecords, postingAnnouncer, postingMessage, type RecordPostings } from './postings';
import { filled, type RecordOf, SCOPED_RECORD_COLUMNS, written } from './record-columns';

/*
 * One maker-checker flow for every case type: a maker opens a case, whose hold the ledger posts;
 * a checker (an active member allowed to approve, not the maker) approves or rejects it, which
 * the ledger settles or releases. A case type declares its table, its scopes, its audit names and
 * how a step becomes a ledger command; everything else (member checks, CASE_NOT_PENDING, the
 * decision's transaction, its audit record, waiting for the ledger, idempotent answers) is here.
 * docs/decisions/maker-checker.md has the rules.
 */

/**
 * The columns every case table has, whatever its type: its id, scope and maker, and the state the
 * flow moves it through. A case type's spec spreads them in (narrowing `status`) with its own.
 */
export const CASE_STATE_COLUMNS = {
  ...SCOPED_RECORD_COLUMNS,
  requestedBy: written<string>('text'),
  status: filled<string>('text'),
  holdEntryId: filled<string | null>('text'),
  failureCode: filled<string | null>('text'),
  /** What the approval policy asked of the case when it was opened (approval-policies.ts). */
  approvalsRequired: written<number>('integer'),
  approverRole: written<OrgRole | null>('text'),
  /** The first of two approvals, until the second decides the case. */
  firstApprovedBy: filled<string | null>('text'),
  firstApprovedAt: filled<Date | null>('timestamptz'),
  decidedBy: filled<string | null>('text'),
  decidedAt: filled<Date | null>('timestamptz'),
  rejectionReason: filled<string | null>('text'),
  decisionEntryId: filled<string | null>('text'),
  /** The ledger's refusal of the settle or release (never expected: suspense holds the money). */
  decisionFailureCode: filled<string | null>('text'),
  createdAt: written<Date>('timestamptz'),
};

/** The state every case carries, whatever its type. */
export type CaseState = RecordOf<typeof CASE_STATE_COLUMNS>;

/** What the flow sets on a case as it moves: never part of a case type's draft. */
export type CaseStateField = Exclude<keyof CaseState, 'id' | 'requestedBy' | 'createdAt' | ApprovalField>;

/** The state of a case from the moment it commits until the ledger answers its hold. */
export function pendingCaseState(scope: RecordScope, seq: string): Pick<CaseState, CaseStateField> & { status: 'pending' } {
  return {
    seq,
    tenantId: scope.tenantId,
    environment: scope.environment,
    status: 'pending' as const,
    holdEntryId: null,
    failureCode: null,
    firstApprovedBy: null,
    firstApprovedAt: null,
    decidedBy: null,
    decidedAt: null,
    rejectionReason: null,
    decisionEntryId: null,
    decisionFailureCode: null,
  };
}

/** A case's fields from its maker to its decision's entry as the API shows them (contracts' caseDecisionFields), but its status. */
export function caseDecisionView(stored: CaseState) {
  return {
    requestedBy: stored.requestedBy,
    holdJournalEntryId: stored.holdEntryId,
    failureCode: stored.failureCode,
    approvalsRequired: stored.approvalsRequired,
    approverRole: stored.approverRole,
    approvals: caseApprovals(stored),
    decidedBy: stored.decidedBy,
    decidedAt: stored.decidedAt ? stored.decidedAt.toISOString() : null,
    rejectionReason: stored.rejectionReason,
    decisionJournalEntryId: stored.decisionEntryId,
  };
}

/** The approvals a case gathered: a first of two, then the one that approved it (a rejection is no approval). */
function caseApprovals(stored: CaseState): Array<{ actorId: string; approvedAt: string }> {
  const approvals = [];
  if (stored.firstApprovedBy && stored.firstApprovedAt)
    approvals.push({ actorId: stored.firstApprovedBy, approvedAt: stored.firstApprovedAt.toISOString() });
  const approved = stored.status !== 'pending' && stored.status !== 'rejected';
  if (approved && stored.decidedBy && stored.decidedAt)
    approvals.push({ actorId: stored.decidedBy, approvedAt: stored.decidedAt.toISOString() });
  return approvals;
}

/**
 * A case type named once (docs/money-movements.md): `type` is its case type, as its records
 * (awaited records, spans) and its audit records' actions (`payout.requested`) name it;
 * `referenceType` its entries' reference type, its finisher's and its audit records' target
 * type; `table` holds its cases; `kinds` is each step's journal kind, the flow's steps' from
 * contracts' CASE_TYPES and any later ones the type adds.
 */
export interface CaseNames<Step extends string = string> {
  type: CaseType;
  referenceType: string;
  table: string;
  kinds: Readonly<Record<Step, JournalKind>>;
}

/** A case type's names: its reference type is the case type unless it says otherwise, its steps the flow's and `laterKinds`' steps. */
export function caseNames<Later extends string = never>(
  type: CaseType,
  names: { table: string; referenceType?: string; laterKinds?: Readonly<Record<Later, JournalKind>> },
): CaseNames<MakerCheckerStep | Later> {
  const later = names.laterKinds ?? ({} as Readonly<Record<Later, JournalKind>>);
  return { type, referenceType: names.referenceType ?? type, table: names.table, kinds: { ...CASE_TYPES[type].kinds, ...later } };
}

/** A case type's steps, as its names list their kinds. */
export function caseStepsOf<Step extends string>(names: CaseNames<Step>): Step[] {
  return Object.keys(names.kinds) as Step[];
}

/** One command per case step, derived from the case id: every copy of a step is the same command to the ledger. */
export function caseStepCommandId(caseId: string, step: string): string {
  return `${caseId}:${step}`;
}

/** Reads the step of a command id among a case type's `steps`; null for any other command id. */
export function caseStepOf<Step extends string>(steps: readonly Step[]): (commandId: string) => Step | null {
  return (commandId) => {
    const step = commandId.slice(commandId.lastIndexOf(':') + 1);
    return (steps as readonly string[]).includes(step) ? (step as Step) : null;
  };
}

export interface CaseDecision {
  status: 'approved' | 'rejected';
  decidedBy: string;
  rejectionReason: string | null;
}

/** The ledger step a decision takes: approval settles the hold, rejection releases it. */
export type DecisionStep = 'settle' | 'release';

/** Where a case type's cases are stored, and how a stored case reads. */
export interface CaseTable<Draft extends { id: string }, Stored> {
  records: RecordTable<Draft>;
  /** Every column a stored case reads, and how a row becomes one. */
  columns: readonly string[];
  fromRow(row: object): Stored;
  find(db: Db | Tx, scope: RecordScope, id: string): Promise<Stored | null>;
}

/** A step after a case's decision: the commands of `steps` are recorded by `step`. */
export interface LaterStep {
  steps: readonly string[];
  step: RecordStep;
}

export interface CaseTypeDeclaration<Draft extends { id: string }, Stored extends CaseState & MoneyRecord, Shown> {
  table: CaseTable<Draft, Stored>;
  names: CaseNames;
  /** The case in messages ("No such payout case"). */
  noun: string;
  /** The scopes a maker's and a checker's role must grant. */
  scopes: { create: string; approve: string };
  /**
   * Steps after the decision, each recorded by its own step from the results of its commands
   * (a payout's complete or fail, once the rail answered).
   */
  laterSteps?: readonly LaterStep[];
  /** The stored case as its creating statement wrote it; `seq` is '' until the statement returned it. */
  created(scope: RecordScope, draft: Draft, seq: string): Stored;
  refusalOf(stored: Stored): AppError;
  show(stored: Stored): Shown;
  /** The command of a decision's step on the case as decided, read in the decision's transaction. */
  decisionCommand(tx: Tx, decided: Stored, step: DecisionStep, correlationId: string | undefined): Promise<LedgerPostV1>;
}

/**
 * A case type's finisher and awaited records, from its declaration alone: the ledger's events
 * finish its hold, its decision's settle or release and its later steps (any instance, any time;
 * a step recorded already is left as it is), and a case awaits the ledger while the step its
 * status names is unanswered.
 */
export function casePostings<Draft, Stored extends { id: string }>(type: {
  names: CaseNames;
  table: { records: RecordTable<Draft>; find(db: Db | Tx, scope: RecordScope, id: string): Promise<Stored | null> };
  laterSteps?: readonly LaterStep[] | undefined;
  show(stored: Stored): unknown;
}): RecordPostings {
  const table = type.table.records.name;
  if (table !== type.names.table) throw new Error(`case type ${type.names.type} is named with table ${type.names.table}, not ${table}`);
  const stepOf = caseStepOf(caseStepsOf(type.names));
  const hold = commandPostings({ recordType: type.names.type, records: type.table.records, step: caseHoldStep(table) });
  const afterHold = [{ steps: ['settle', 'release'], step: caseDecisionStep(table) }, ...(type.laterSteps ?? [])];
  return {
    referenceType: type.names.referenceType,
    finisher: async (tx, results) => {
      await hold.finisher(tx, resultsOfSteps(results, stepOf, 'hold'));
      for (const { steps, step } of afterHold) await finishSteps(tx, step, scopedOutcomesOf(resultsOfSteps(results, stepOf, ...steps)));
    },
    awaited: { recordType: type.names.type, table, waiting: CASE_AWAITS_LEDGER_SQL },
    announcer: postingAnnouncer({ typeOf: caseEventType(type.names.type, stepOf), find: type.table.find, show: type.show }),
  };
}

/** What each step's result says of a case: `failed` twice, for a hold refused and for a delivery that failed. */
const CASE_STEP_EVENTS: Readonly<Record<string, { posted?: string; rejected?: string }>> = {
  hold: { posted: 'requested', rejected: 'failed' },
  settle: { posted: 'approved' },
  release: { posted: 'rejected' },
  complete: { posted: 'completed' },
  fail: { posted: 'failed' },
};

/** The event type of a case step's result (`payout.approved`); null for a step or outcome no event names. */
function caseEventType(caseType: CaseType, stepOf: (commandId: string) => string | null): (result: LedgerResultV1) => EventType | null {
  return (result) => {
    const step = stepOf(result.commandId);
    const outcome = step ? CASE_STEP_EVENTS[step]?.[result.status as 'posted' | 'rejected'] : undefined;
    const parsed = eventTypeSchema.safeParse(`${caseType}.${outcome}`);
    return outcome && parsed.success ? parsed.data : null;
  };
}

export type MakerCheckerDeps = LedgerWait &
  MoneyCommandDeps & {
    members: Pick<MemberDirectory, 'memberOf'>;
    tenants: Pick<TenantDirectory, 'require'>;
  };

/** What every case's request carries. */
export interface CaseRequestBody {
  requestedBy: string;
  amount: string;
  currencyCode: string;
}

/** A case as its type drafts it: what the approval policy sets is added when it is opened. */
export type CaseDraft<Draft> = Omit<Draft, ApprovalField> & { requestedBy: string; amount: string; currencyCode: string };

export interface OpenCase<Draft> {
  scope: RecordScope;
  claims: InternalClaims;
  draft: CaseDraft<Draft>;
  hold: LedgerPostV1;
  /** What the `<prefix>.requested` audit record says of the case, besides who asked. */
  requested: Record<string, unknown>;
  answers: CommandAnswers;
}

/** A checker's decision on one case, as its transaction commits it. */
interface DecisionTaken {
  scope: RecordScope;
  claims: InternalClaims;
  id: string;
  decision: CaseDecision;
  step: DecisionStep;
  replyTo: string | undefined;
}

export class MakerChecker<Draft extends { id: string }, Stored extends CaseState & MoneyRecord, Shown> {
  readonly holdStep: RecordStep;
  readonly decisionStep: RecordStep;
  readonly policies: ApprovalPolicies;
  private readonly hold: MoneyCommand<Draft, Stored, Shown>;
  private readonly columnList: string;
  private readonly postings: RecordPostings;

  constructor(
    protected readonly deps: MakerCheckerDeps,
    private readonly type: CaseTypeDeclaration<Draft, Stored, Shown>,
  ) {
    const { table } = type;
    this.holdStep = caseHoldStep(table.records.name);
    this.decisionStep = caseDecisionStep(table.records.name);
    this.columnList = table.columns.map((column) => `r.${column}`).join(', ');
    this.postings = casePostings(type);
    this.policies = new ApprovalPolicies(deps.db, { type: type.names.type, approveScope: type.scopes.approve });
    this.hold = new MoneyCommand(deps, {
      recordType: type.names.type,
      approval: { caseType: type.names.type },
      // Money leaving through a checker is a movement like any other: within the tenant's ceiling.
      amount: { limit: 'tenant' },
      records: table.records,
      keyWrite: 'held',
      step: this.holdStep,
      created: type.created,
      ...caseHoldReads<Stored>(),
      refusalOf: type.refusalOf,
      find: table.find,
      show: type.show,
      notFound: () => this.notFound(),
    });
  }

  /** The case type a checker decides. */
  get approval(): Approval {
    return this.hold.declaration.approval;
  }

  /** This type's cases as records that may await the ledger (the pending-age metric): a hold or a decision not yet posted. */
  get awaitedRecords(): AwaitedRecords {
    return this.postings.awaited;
  }

  /** What needs no lookup, first: the declared actor, then the amount. */
  protected checkRequest(claims: InternalClaims, body: CaseRequestBody): void {
    checkDeclaredActor(claims, body.requestedBy, 'requestedBy');
    this.hold.checkAmount(body);
  }

  /** The tenant's transaction limit, then the maker: an active member whose role grants the type's create scope. */
  protected async requireRequestAllowed(scope: RecordScope, body: CaseRequestBody): Promise<void> {
    await this.hold.checkLimit(scope.tenantId, body.amount);
    await requirePermittedMember(this.deps.members, scope.tenantId, body.requestedBy, this.type.scopes.create);
  }

  /**
   * Opens the case with its hold and its `requested` audit record, answering as the ledger's
   * answer to the hold allows. The approval policy's requirement now is written with the case.
   */
  protected async open(request: OpenCase<Draft>): Promise<CommandResult<Shown>> {
    const { scope } = request;
    const requirement = await approvalRequirement(this.deps.db, scope, this.type.names.type, request.draft);
    // The draft lacks exactly the requirement's fields (CaseDraft), which TypeScript cannot see through Omit.
    const draft = { ...request.draft, ...requirement } as unknown as Draft & { requestedBy: string };
    const actor = auditActorFieldsOf(request.claims);
    const audit = auditRecordMessage({
      tenantId: scope.tenantId,
      environment: scope.environment,
      action: `${this.type.names.type}.requested`,
      actorType: actor.actorType,
      actorId: draft.requestedBy,
      targetType: this.type.names.referenceType,
      targetId: draft.id,
      metadata: { ...actor.metadata, callerActorId: actor.actorId, ...request.requested, ...requirement },
    });
    return this.hold.run({ scope, draft, command: request.hold, alsoSent: [audit], answers: request.answers });
  }

  approve(
    scope: RecordScope,
    claims: InternalClaims,
    id: string,
    body: { actorId: string },
    answers: DecisionAnswers<Shown>,
  ): Promise<DecisionResult<Shown>> {
    return this.decide(scope, claims, id, { status: 'approved', decidedBy: body.actorId, rejectionReason: null }, answers);
  }

  reject(
    scope: RecordScope,
    claims: InternalClaims,
    id: string,
    body: { actorId: string; reason: string },
    answers: DecisionAnswers<Shown>,
  ): Promise<DecisionResult<Shown>> {
    return this.decide(scope, claims, id, { status: 'rejected', decidedBy: body.actorId, rejectionReason: body.reason }, answers);
  }

  get(scope: RecordScope, id: string): Promise<Shown> {
    return this.hold.get(scope, id);
  }

  /** Finishes holds, decisions and later steps from ledger events (casePostings). */
  finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    return this.postings.finisher(tx, results);
  }

  /**
   * The checker's step: who may take it is checked first (identity answers for the member now),
   * then the case moves out of pending with its posting command, its audit record and the key's
   * 202 in one transaction, conditional on it still being pending with its hold posted; the
   * answer waits for the ledger's entry (200) up to the deadline (202).
   */
  private async decide(
    scope: RecordScope,
    claims: InternalClaims,
    id: string,
    decision: CaseDecision,
    answers: DecisionAnswers<Shown>,
  ): Promise<DecisionResult<Shown>> {
    const { type, deps } = this;
    checkDeclaredActor(claims, decision.decidedBy, 'actorId');
    const current = await type.table.find(deps.db, scope, id);
    if (!current) throw this.notFound();
    if (current.requestedBy === decision.decidedBy)
      throw new AppError('SELF_APPROVAL_FORBIDDEN', `The requester of a ${type.noun} cannot decide it`, {
        actorId: decision.decidedBy,
      });
    const member = await requirePermittedMember(deps.members, scope.tenantId, decision.decidedBy, type.scopes.approve);
    if (decision.status === 'approved') checkApprover(current, member);

    const step: DecisionStep = decision.status === 'approved' ? 'settle' : 'release';
    const { committed: decided, result } = await commitAndAwait(
      deps,
      { id: caseStepCommandId(id, step), record: { type: type.names.type, id } },
      (replyTo) => deps.db.transaction((tx) => this.commitDecision(tx, { scope, claims, id, decision, step, replyTo }, answers)),
      // A first of two approvals sends nothing to the ledger: the case stays pending, its hold held.
      (committed) => committed.status !== 'pending',
    );
    if (decided.status === 'pending') return { status: 200, shown: type.show(decided) };
    const recorder = {
      show: (decisionEntryId: string | null) => type.show({ ...decided, decisionEntryId }),
      // The answer is stored even when the event path recorded the entry first (the same entry); false when another attempt holds the key.
      recordPosted: async (journalEntryId: string, answer: SqlStatement) =>
        (await recordPosted(deps.db, this.decisionStep, [{ scope, record: decided, journalEntryId }], answer)).size > 0,
      recordRefused: async (failureCode: string) => {
        await finishSteps(deps.db, this.decisionStep, [{ scope, id, outcome: { status: 'refused', failureCode } }]);
      },
    };
    return answerDecision(result, recorder, answers, `the ${step} of ${type.noun} ${id}`);
  }

  /** The decision's transaction: the case, its command (answered on `replyTo`), its audit record and the key's 202. */
  private async commitDecision(tx: Tx, taken: DecisionTaken, answers: DecisionAnswers<Shown>): Promise<Stored> {
    const { scope, id, decision } = taken;
    const decided = await this.moveOutOfPending(tx, scope, id, decision);
    if (!decided) {
      const now = await this.type.table.find(tx, scope, id);
      if (now?.firstApprovedBy === decision.decidedBy && decision.status === 'approved') throw approvalGivenError(now.firstApprovedBy);
      throw now ? undecidableCaseError(now) : this.notFound();
    }
    if (decided.status === 'pending') {
      await this.recordFirstApproval(tx, taken, decided, answers);
      return decided;
    }
    const command = await this.type.decisionCommand(tx, decided, taken.step, currentContext()?.correlationId);
    const actor = auditActorFieldsOf(taken.claims);
    await enqueueOutbox(tx, [
      postingMessage(command, { replyTo: taken.replyTo }),
      auditRecordMessage({
        tenantId: scope.tenantId,
        environment: scope.environment,
        action: `${this.type.names.type}.${decision.status}`,
        actorType: actor.actorType,
        actorId: decision.decidedBy,
        targetType: this.type.names.referenceType,
        targetId: id,
        metadata: {
          ...actor.metadata,
          callerActorId: actor.actorId,
          before: { status: 'pending' },
          after: { status: decided.status },
          ...(decided.firstApprovedBy ? { approvals: [decided.firstApprovedBy, decision.decidedBy] } : {}),
          ...(decision.rejectionReason ? { reason: decision.rejectionReason } : {}),
        },
      }),
    ]);
    await answers.accepted(tx, this.type.show(decided));
    return decided;
  }

  /**
   * Moves a pending case whose hold is posted to its decision, or records the first of its two
   * approvals (it stays pending); null when neither applies (decided already, hold unconfirmed or
   * refused, approved already by this checker, not this tenant's). The one place a case leaves
   * pending by decision: concurrent checkers serialize on the row, and each re-reads it before
   * its change, so of two first approvals one is first and the other decides.
   */
  private async moveOutOfPending(tx: Tx, scope: RecordScope, id: string, decision: CaseDecision): Promise<Stored | null> {
    const { status, decidedBy: actor } = decision;
    const first = `(CAST(? AS text) = 'approved' AND r.approvals_required = 2 AND r.first_approved_by IS NULL)`;
    const result = await prepared<{ rows: object[] }>(
      tx,
      `UPDATE ${this.type.table.records.name} r
       SET status = CASE WHEN ${first} THEN 'pending' ELSE ? END,
           first_approved_by = CASE WHEN ${first} THEN ? ELSE r.first_approved_by END,
           first_approved_at = CASE WHEN ${first} THEN now() ELSE r.first_approved_at END,
           decided_by = CASE WHEN ${first} THEN NULL ELSE ? END,
           decided_at = CASE WHEN ${first} THEN NULL ELSE now() END,
           rejection_reason = ?
       WHERE r.id = ? AND r.tenant_id = ? AND r.environment = ? AND r.status = 'pending' AND r.hold_entry_id IS NOT NULL
         AND (CAST(? AS text) = 'rejected' OR r.first_approved_by IS DISTINCT FROM ?)
       RETURNING ${this.columnList}`,
      [
        status,
        status,
        status,
        actor,
        status,
        status,
        actor,
        status,
        decision.rejectionReason,
        id,
        scope.tenantId,
        scope.environment,
        status,
        actor,
      ],
    );
    const row = result.rows[0];
    return row ? this.type.table.fromRow(row) : null;
  }

  /** The first of two approvals: audited, and its answer (200, the case pending) kept under the key. */
  private async recordFirstApproval(tx: Tx, taken: DecisionTaken, recorded: Stored, answers: DecisionAnswers<Shown>): Promise<void> {
    const actor = auditActorFieldsOf(taken.claims);
    await enqueueOutbox(tx, [
      auditRecordMessage({
        tenantId: taken.scope.tenantId,
        environment: taken.scope.environment,
        action: `${this.type.names.type}.approval_recorded`,
        actorType: actor.actorType,
        actorId: taken.decision.decidedBy,
        targetType: this.type.names.referenceType,
        targetId: taken.id,
        metadata: {
          ...actor.metadata,
          callerActorId: actor.actorId,
          approvals: 1,
          approvalsRequired: recorded.approvalsRequired,
          // Whom the second approval may come from: the reviewers' notice names the maker and the role.
          requestedBy: recorded.requestedBy,
          approverRole: recorded.approverRole,
        },
      }),
    ]);
    await answers.recorded(tx, this.type.show(recorded));
  }

  private notFound(): AppError {
    return new AppError('NOT_FOUND', `No such ${this.type.noun}`);
  }
}

/** An approval must come from the role the case's policy names, and a checker approves a case once. */
function checkApprover(current: CaseState, member: MemberPrincipal): void {
  if (current.approverRole && member.orgRole !== current.approverRole) {
    throw new AppError('APPROVER_ROLE_REQUIRED', `This case's approval policy asks for an approver of the ${current.approverRole} role`, {
      actorId: member.id,
      approverRole: current.approverRole,
    });
  }
  if (current.firstApprovedBy === member.id) throw approvalGivenError(member.id);
}

function approvalGivenError(actorId: string): AppError {
  return new AppError(
    'APPROVAL_ALREADY_GIVEN',
    'This checker approved the case already; its policy asks for a second, different approver',
    {
      actorId,
    },
  );
}
