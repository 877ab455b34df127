import { z } from 'zod';
import { boundedFiltersNote, createdRangeQueryShape, moneySortQueryShape, pageQuerySchema, timestampSchema } from '../common';
import type { ErrorCode } from '../errors';
import { amountInputSchema, integerInputSchema } from '../json';
import type { JournalKind } from '../messages/journal-terms';
import { currencyCodeSchema } from '../money';
import type { ServiceName } from '../route-contract';
import { plainTextSchema } from '../text';
import { orgRoleSchema } from './identity';

/*
 * What wallet payouts and tenant withdrawals share as maker-checker cases
 * (docs/decisions/maker-checker.md): the maker's request, the checker's decision, and the
 * ledger entry each step posted. Each feature adds what it pays out of and where to.
 */

/** The steps of the maker-checker flow, each posting its own entry: the hold, then the settle (approval) or the release (rejection). */
export const MAKER_CHECKER_STEPS = ['hold', 'settle', 'release'] as const;
export type MakerCheckerStep = (typeof MAKER_CHECKER_STEPS)[number];

/**
 * The movements that wait for a checker, by case type: the journal kind of each step of the
 * flow, and the analytics answer's field of the cases held and not yet decided. A case type
 * names its cases' records (awaited records, spans) and prefixes their audit records' actions
 * (`payout.requested`). Here, not in the services, because whoever reads the journal (treasury's
 * analytics) must know every case type's kinds, whichever service owns it; the service that owns
 * it declares the movement whose approval is the case type (test/movements.test.ts holds the
 * two together).
 */
export const CASE_TYPES = {
  payout: { kinds: { hold: 'payout_hold', settle: 'payout_settle', release: 'payout_release' }, pending: 'pendingPayouts' },
  withdrawal: {
    kinds: { hold: 'withdrawal_hold', settle: 'withdrawal_settle', release: 'withdrawal_release' },
    pending: 'pendingWithdrawals',
  },
} as const satisfies Record<string, { kinds: Record<MakerCheckerStep, JournalKind>; pending: `pending${string}` }>;
export type CaseType = keyof typeof CASE_TYPES;
/** The analytics answer's field of a case type's pending cases. */
export type CasePendingField = (typeof CASE_TYPES)[CaseType]['pending'];

/** Every case type, in CASE_TYPES' order. */
export const CASE_TYPE_NAMES = Object.keys(CASE_TYPES) as CaseType[];

/** A team member id (`usr_`) as a maker or checker gives it in a body. */
export const caseMemberIdSchema = plainTextSchema(64, { trim: false });

/** A request's fields after what it pays out of (a wallet, a tenant's source). */
export const caseRequestFields = {
  amount: amountInputSchema,
  currencyCode: currencyCodeSchema,
  /** Team member id (`usr_`) of the maker; equal to the actor header when one is sent. */
  requestedBy: caseMemberIdSchema,
  narration: z.string().trim().min(1).max(500).optional(),
};

/** The checker's body; must equal the actor header (or the session's member) when one is sent. */
/** A case list's query: a page, and the status (with whatever else the type filters by). */
export function caseQuerySchema<Status extends z.ZodType, Extra extends z.ZodRawShape = Record<never, never>>(
  status: Status,
  extra?: Extra,
) {
  return pageQuerySchema.extend({
    ...(extra as Extra),
    status: status.optional() as z.ZodOptional<Status>,
    ...createdRangeQueryShape,
    ...moneySortQueryShape,
  });
}

export const approveCaseBodySchema = z.object({ actorId: caseMemberIdSchema });
export type ApproveCaseBody = z.infer<typeof approveCaseBodySchema>;

export const rejectCaseBodySchema = z.object({ actorId: caseMemberIdSchema, reason: z.string().trim().min(1).max(500) });
export type RejectCaseBody = z.infer<typeof rejectCaseBodySchema>;

/**
 * A tenant's approval policy of one case type (docs/decisions/approval-policies.md): per
 * currency, a case of more than `aboveAmount` needs `approvalsRequired` distinct checkers (the
 * maker never one of them), each of `approverRole` when one is named. At or below it, or in a
 * currency without a rule, one checker with the approve scope decides, as always. A case keeps
 * the requirement it was opened under.
 */
export const approvalRuleInputSchema = z
  .object({
    currencyCode: currencyCodeSchema,
    aboveAmount: amountInputSchema,
    approvalsRequired: integerInputSchema({ min: 1, max: 2 }),
    approverRole: orgRoleSchema.nullable().default(null),
  })
  .refine((rule) => rule.approvalsRequired === 2 || rule.approverRole !== null, {
    message: 'A rule asks for two approvers, an approver role, or both; one approver of any role is the default already',
    path: ['approvalsRequired'],
  });

/** `PUT`: the whole policy of the case type, replacing the one before; no rules is no policy. */
export const approvalPolicyBodySchema = z.object({
  rules: z
    .array(approvalRuleInputSchema)
    .max(50)
    .refine((rules) => new Set(rules.map((rule) => rule.currencyCode)).size === rules.length, {
      message: 'One rule per currency',
    }),
});
export type ApprovalPolicyBody = z.infer<typeof approvalPolicyBodySchema>;

export const approvalRuleSchema = z.object({
  currencyCode: z.string(),
  aboveAmount: z.string(),
  approvalsRequired: z.number().int().min(1).max(2),
  approverRole: orgRoleSchema.nullable(),
});
export type ApprovalRule = z.infer<typeof approvalRuleSchema>;

export const approvalPolicySchema = z.object({
  rules: z.array(approvalRuleSchema),
  /** Who set the policy last, and when; null while none was ever set. */
  updatedBy: z.string().nullable(),
  updatedAt: timestampSchema.nullable(),
});
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/** An approval a case counts towards its requirement. */
export const caseApprovalSchema = z.object({ actorId: z.string(), approvedAt: timestampSchema });

/** What a case must gather before it is approved, as its policy set it when it was opened, and what it has. */
export const caseApprovalFields = {
  approvalsRequired: z.number().int().min(1).max(2),
  /** The role every approver must hold; null: any role that grants the approve scope. */
  approverRole: orgRoleSchema.nullable(),
  /** In the order given; the last of a full set is the decision (decidedBy). */
  approvals: z.array(caseApprovalSchema),
};

/**
 * A shown case's fields from its maker to its decision's entry, in this order; a case's
 * schema spreads them after its request's fields.
 */
export function caseDecisionFields<Status extends z.ZodType>(status: Status) {
  return {
    requestedBy: z.string(),
    status,
    /** The hold entry once the ledger posted it; null until then and when refused. */
    holdJournalEntryId: z.string().nullable(),
    /** The ledger's refusal of the hold when failed; else null. */
    failureCode: z.string().nullable(),
    ...caseApprovalFields,
    decidedBy: z.string().nullable(),
    decidedAt: timestampSchema.nullable(),
    rejectionReason: z.string().nullable(),
    /** The settle (approved) or release (rejected) entry once the ledger posted it. */
    decisionJournalEntryId: z.string().nullable(),
  };
}

/**
 * A shown case's fields after its decision's entry when a rail delivers it once approved (a
 * payout, a withdrawal): the rail's answer and the entry of its outcome, complete or fail.
 */
export function caseRailFields() {
  return {
    /** The rail's reference once it answered the delivery of an approved case. */
    railReference: z.string().nullable(),
    /** Why the rail failed the delivery (status `failed` after approval); else null. */
    railFailureReason: z.string().nullable(),
    /** The complete or fail entry once the ledger posted it. */
    outcomeJournalEntryId: z.string().nullable(),
  };
}

/** What a delivered case's `awaitingLedger` also waits for (caseAwaitingLedgerSchema). */
export const RAIL_STEP_AWAITED = 'the complete or fail of a delivered one';

const CASE_STEPS_AWAITED = [
  'the hold of a `pending` case (it cannot be decided yet: 409 CASE_HOLD_IN_PROGRESS, retry after Retry-After)',
  'the settle or release of an `approved` or `rejected` one (the decision is taken and cannot change)',
];

/** A shown case's `awaitingLedger`; `laterSteps` names what a case's steps after its decision wait for. */
export function caseAwaitingLedgerSchema(laterSteps: readonly string[] = []): z.ZodBoolean {
  const steps = [...CASE_STEPS_AWAITED, ...laterSteps].join(', ');
  return z
    .boolean()
    .describe(
      `True while the ledger has not yet posted the entry of the step the status names, so the money has not moved as the status says: ${steps}. The status is final once this is false.`,
    );
}

/** What a case type's routes differ by: where its cases are, who answers, with which scopes, and what they say. */
export interface CaseRoutesSpec<
  CreatePath extends string,
  ListPath extends string,
  ItemPath extends string,
  PolicyPath extends string,
  Service extends ServiceName,
  Create extends z.ZodType,
  Query extends z.ZodObject,
  Page extends z.ZodType,
  Shown extends z.ZodType,
> {
  /**
   * `create`: where `POST` opens a case (Idempotency-Key required); `list`: where `GET` lists
   * cases, and `GET <list>/{id}` shows one; `item`: the case's path template (`/v1/payouts/{id}`),
   * under which the decisions are `/approve` and `/reject`.
   */
  paths: { create: CreatePath; list: ListPath; item: ItemPath; policy: PolicyPath };
  /** What one case is called, in the reads' summaries ('payout case'). */
  noun: string;
  service: Service;
  scopes: CaseScopes;
  /** The maker's body, the list's query and page, and the case as shown (the answer to every route but the list). */
  schemas: { create: Create; query: Query; page: Page; shown: Shown };
  /** What the maker's and the checker's routes say of themselves; the reads' follow from `noun`. */
  summaries: { create: string; approve: string; reject: string };
  /** The SDK's namespace of the cases (`payouts`): the routes' operationIds are `<namespace>.create`, `.list`, ... */
  namespace: string;
  /** What the maker's request can be refused for besides what every case's can (its wallet or source, the ledger's refusals). */
  createErrors: readonly ErrorCode[];
}

export interface CaseScopes {
  create: string;
  read: string;
  approve: string;
}

/** A case type's five routes: the maker's create, the two reads, and the checker's two decisions (answered with the case). */
export function caseRoutes<
  const CreatePath extends string,
  const ListPath extends string,
  const ItemPath extends string,
  const PolicyPath extends string,
  const Service extends ServiceName,
  Create extends z.ZodType,
  Query extends z.ZodObject,
  Page extends z.ZodType,
  Shown extends z.ZodType,
>(spec: CaseRoutesSpec<CreatePath, ListPath, ItemPath, PolicyPath, Service, Create, Query, Page, Shown>) {
  const { schemas, summaries } = spec;
  const base = { surface: 'tenant', service: spec.service } as const;
  const read = { ...base, method: 'get', scope: spec.scopes.read } as const;
  const decision = caseDecisionRoute(spec.service, spec.scopes.approve, schemas.shown);
  return {
    create: {
      ...base,
      method: 'post',
      path: spec.paths.create,
      operationId: `${spec.namespace}.create`,
      idempotencyKey: 'required',
      summary: summaries.create,
      scope: spec.scopes.create,
      body: schemas.create,
      success: { status: 201, schema: schemas.shown },
      alsoAnswers: { 202: 'Pending, but the ledger has not posted the hold within the deadline: awaitingLedger is true until it does' },
      errors: ['INVALID_AMOUNT', 'ACTOR_NOT_PERMITTED', 'AMOUNT_EXCEEDS_LIMIT', ...spec.createErrors],
    },
    list: {
      ...read,
      path: spec.paths.list,
      operationId: `${spec.namespace}.list`,
      summary: `List ${spec.noun}s, newest first unless sort names another order (createdAt or amount, either way); status=pending (the approvals inbox) is read from its own index when sorted by creation. ${boundedFiltersNote('on any other status (any status when sorted by amount), and on createdFrom and createdTo')}`,
      query: schemas.query,
      success: { status: 200, schema: schemas.page },
    },
    get: {
      ...read,
      path: `${spec.paths.list}/{id}` as const,
      operationId: `${spec.namespace}.get`,
      summary: `Get a ${spec.noun}`,
      success: { status: 200, schema: schemas.shown },
    },
    approve: {
      ...decision,
      path: `${spec.paths.item}/approve` as const,
      operationId: `${spec.namespace}.approve`,
      summary: summaries.approve,
      body: approveCaseBodySchema,
      errors: [...decision.errors, 'APPROVER_ROLE_REQUIRED', 'APPROVAL_ALREADY_GIVEN'],
    },
    reject: {
      ...decision,
      path: `${spec.paths.item}/reject` as const,
      operationId: `${spec.namespace}.reject`,
      summary: summaries.reject,
      body: rejectCaseBodySchema,
    },
    ...casePolicyRoutes(spec),
  } as const;
}

/** What a checker's two routes share: the approve scope, an optional key, the case as the answer. */
function caseDecisionRoute<const Service extends ServiceName, Shown extends z.ZodType>(service: Service, scope: string, shown: Shown) {
  return {
    surface: 'tenant',
    service,
    method: 'post',
    scope,
    idempotencyKey: 'optional',
    success: { status: 200, schema: shown },
    alsoAnswers: {
      202: 'Decided, but the ledger has not posted the settle or release within the deadline: awaitingLedger is true until it does',
    },
    errors: ['ACTOR_NOT_PERMITTED', 'SELF_APPROVAL_FORBIDDEN', 'CASE_NOT_PENDING', 'CASE_HOLD_IN_PROGRESS'],
  } as const;
}

/** A case type's approval policy: read with its cases' read scope, replaced by an org-admin. */
function casePolicyRoutes<const PolicyPath extends string, const Service extends ServiceName>(spec: {
  paths: { policy: PolicyPath };
  service: Service;
  scopes: CaseScopes;
  noun: string;
  namespace: string;
}) {
  const policy = {
    surface: 'tenant',
    service: spec.service,
    path: spec.paths.policy,
    success: { status: 200, schema: approvalPolicySchema },
  } as const;
  return {
    getApprovalPolicy: {
      ...policy,
      method: 'get',
      scope: spec.scopes.read,
      operationId: `${spec.namespace}.approvalPolicy.get`,
      summary: `Get the approval policy of ${spec.noun}s: per currency, above which amount a case needs two approvers or an approver of a named role`,
    },
    setApprovalPolicy: {
      ...policy,
      method: 'put',
      scope: 'tenant:manage',
      operationId: `${spec.namespace}.approvalPolicy.set`,
      summary: `Replace the approval policy of ${spec.noun}s (org-admin). Cases opened from now on follow it; an open case keeps the requirement it was opened under. Audited as approval_policy.updated with the rules before and after`,
      body: approvalPolicyBodySchema,
    },
  } as const;
}
