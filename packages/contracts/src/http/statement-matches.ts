import { z } from 'zod';
import { pageQuerySchema, pageSchema, timestampSchema } from '../common';
import { idSchema } from '../ids';
import { integerInputSchema } from '../json';
import type { RouteContract } from '../route-contract';
import { plainTextSchema } from '../text';
import { depositSchema, statementLineRecordSchema } from './deposits';
import { approveCaseBodySchema, caseMemberIdSchema, rejectCaseBodySchema } from './maker-checker';

/*
 * The reconciliation workbench (docs/decisions/statement-matches.md): a bank slip and a statement
 * line the exact rule (reference and amount) did not pair, matched by hand or by the tenant's
 * rule, each match a maker-checker decision with a reason. Its approval credits the slip through
 * the ledger like a verification, and the line is matched from then on.
 */

export const STATEMENT_MATCH_STATUSES = ['pending', 'approved', 'rejected'] as const;
export const statementMatchStatusSchema = z.enum(STATEMENT_MATCH_STATUSES);

/** `POST /v1/reconciliation/matches`: the maker proposes that this line is this slip's money. */
export const proposeStatementMatchBodySchema = z.object({
  depositId: idSchema('deposit'),
  /** A statement line's id as its list shows it. */
  statementLineId: z.string().regex(/^[0-9]{1,19}$/, 'must be a statement line id'),
  reason: plainTextSchema(500),
  /** The team member (`usr_`) proposing: active, with a role that grants deposits:verify. */
  proposedBy: caseMemberIdSchema,
});
export type ProposeStatementMatchBody = z.infer<typeof proposeStatementMatchBodySchema>;

/** A match's checker decides as a case's does: the same bodies. */
export { approveCaseBodySchema as approveStatementMatchBodySchema, rejectCaseBodySchema as rejectStatementMatchBodySchema };

export const statementMatchSchema = z.object({
  id: z.string(),
  depositId: z.string(),
  statementLineId: z.string(),
  reason: z.string(),
  proposedBy: z.string(),
  status: statementMatchStatusSchema,
  decidedBy: z.string().nullable(),
  decidedAt: timestampSchema.nullable(),
  rejectionReason: z.string().nullable(),
  /** The slip as the decision left it: `completed` (with its entry once posted) after an approval. */
  deposit: depositSchema,
  statementLine: statementLineRecordSchema,
  createdAt: timestampSchema,
});
export type StatementMatch = z.infer<typeof statementMatchSchema>;

export const statementMatchQuerySchema = pageQuerySchema.extend({ status: statementMatchStatusSchema.optional() });

/** How the tenant's rule pairs a pending slip with an unmatched line of its bank, currency and amount. */
export const matchRuleSchema = z.object({
  /** `exact`: the same reference (in any letter case); `contains`: either reference holds the other; `any`: ignored. */
  reference: z.enum(['exact', 'contains', 'any']),
  /** How many days the line's date may be from the slip's submission, either side. */
  dateWindowDays: z.number().int().min(0).max(31),
});
export type MatchRule = z.infer<typeof matchRuleSchema>;
export const matchRuleBodySchema = matchRuleSchema.extend({ dateWindowDays: integerInputSchema({ min: 0, max: 31 }) });

/** What the rule finds for the oldest pending slips: each slip with the unmatched lines it could be. */
export const matchSuggestionsSchema = z.object({
  rule: matchRuleSchema,
  data: z.array(z.object({ deposit: depositSchema, candidates: z.array(statementLineRecordSchema) })),
});

const base = { surface: 'tenant', service: 'payments' } as const;
const decision = { ...base, method: 'post', scope: 'deposits:verify', success: { status: 200, schema: statementMatchSchema } } as const;

export const statementMatchRoutes = {
  propose: {
    ...base,
    method: 'post',
    path: '/v1/reconciliation/matches',
    operationId: 'reconciliation.matches.propose',
    summary:
      "Propose that an unmatched statement line is a pending bank slip's money (maker): the same bank, currency and amount; the reference and date may differ, which is why a reason is asked and a checker decides",
    scope: 'deposits:verify',
    body: proposeStatementMatchBodySchema,
    idempotencyKey: 'optional',
    success: { status: 201, schema: statementMatchSchema },
    errors: [
      'ACTOR_NOT_PERMITTED',
      'DEPOSIT_NOT_FOUND',
      'DEPOSIT_NOT_PENDING',
      'STATEMENT_LINE_NOT_FOUND',
      'STATEMENT_LINE_TAKEN',
      'MATCH_MISMATCH',
    ],
  },
  list: {
    ...base,
    method: 'get',
    path: '/v1/reconciliation/matches',
    operationId: 'reconciliation.matches.list',
    summary: 'List proposed matches, newest first; status=pending is the checkers\u2019 queue',
    scope: 'wallets:read',
    query: statementMatchQuerySchema,
    success: { status: 200, schema: pageSchema(statementMatchSchema) },
  },
  approve: {
    ...decision,
    path: '/v1/reconciliation/matches/{id}/approve',
    operationId: 'reconciliation.matches.approve',
    summary:
      'Approve a proposed match (checker: deposits:verify, not the proposer): the slip is credited through the ledger with that line, which is matched from then on. 409 MATCH_NOT_PENDING once decided; 409 STATEMENT_LINE_TAKEN or DEPOSIT_NOT_PENDING when either was used meanwhile',
    body: approveCaseBodySchema,
    errors: [
      'ACTOR_NOT_PERMITTED',
      'SELF_APPROVAL_FORBIDDEN',
      'MATCH_NOT_FOUND',
      'MATCH_NOT_PENDING',
      'STATEMENT_LINE_TAKEN',
      'DEPOSIT_NOT_PENDING',
    ],
  },
  reject: {
    ...decision,
    path: '/v1/reconciliation/matches/{id}/reject',
    operationId: 'reconciliation.matches.reject',
    summary: 'Reject a proposed match with a reason: nothing moves; the slip and the line are free again',
    body: rejectCaseBodySchema,
    errors: ['ACTOR_NOT_PERMITTED', 'SELF_APPROVAL_FORBIDDEN', 'MATCH_NOT_FOUND', 'MATCH_NOT_PENDING'],
  },
  suggestions: {
    ...base,
    method: 'get',
    path: '/v1/reconciliation/suggestions',
    operationId: 'reconciliation.suggestions',
    summary:
      "The tenant's match rule applied to the oldest pending bank slips: each with the unmatched lines of its bank, currency and amount that the rule accepts (at most 5 each)",
    scope: 'wallets:read',
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }),
    success: { status: 200, schema: matchSuggestionsSchema },
  },
  getRule: {
    ...base,
    method: 'get',
    path: '/v1/reconciliation/match-rule',
    operationId: 'reconciliation.matchRule.get',
    summary: "The tenant's match rule (by default: the same reference, dates within 3 days)",
    scope: 'wallets:read',
    success: { status: 200, schema: matchRuleSchema },
  },
  setRule: {
    ...base,
    method: 'put',
    path: '/v1/reconciliation/match-rule',
    operationId: 'reconciliation.matchRule.set',
    summary: "Set the tenant's match rule; audited as reconciliation.match_rule_updated",
    scope: 'tenant:manage',
    body: matchRuleBodySchema,
    success: { status: 200, schema: matchRuleSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const STATEMENT_MATCH_ROUTES: RouteContract[] = Object.values(statementMatchRoutes);
