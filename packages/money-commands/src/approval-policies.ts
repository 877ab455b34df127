import {
  type ApprovalPolicy,
  type ApprovalPolicyBody,
  type ApprovalRule,
  type CaseType,
  checkAmount,
  formatAmount,
  hasScope,
  type OrgRole,
  scopesOfRole,
} from '@wallet/contracts';
import {
  AppError,
  auditActorFieldsOf,
  auditRecordMessage,
  type Db,
  enqueueOutbox,
  type InternalClaims,
  prepared,
  type Tx,
} from '@wallet/kit';
import type { RecordScope } from './money-command-statement';

/*
 * A tenant's approval policy of one case type (docs/decisions/approval-policies.md), in the
 * database of the service that owns the case type: read where a case is opened, so that the
 * requirement it was opened under is written with it and no later change of the policy moves it.
 */

/** What a case must gather before it is approved. */
export interface ApprovalRequirement {
  approvalsRequired: number;
  approverRole: OrgRole | null;
}

/** The rule of every case without a policy: one checker with the approve scope. */
export const ONE_APPROVAL: ApprovalRequirement = { approvalsRequired: 1, approverRole: null };

/** A case's fields the policy sets when it is opened: never in a case type's own draft. */
export type ApprovalField = keyof ApprovalRequirement;

/** The requirement of a case of `amount` opened now: the currency's rule when the amount is above it. */
export async function approvalRequirement(
  db: Db | Tx,
  scope: RecordScope,
  caseType: CaseType,
  money: { amount: string; currencyCode: string },
): Promise<ApprovalRequirement> {
  const result = await prepared<{ rows: Array<{ approvals_required: number; approver_role: OrgRole | null }> }>(
    db,
    `SELECT approvals_required, approver_role FROM approval_policy_rules
     WHERE tenant_id = ? AND environment = ? AND case_type = ? AND currency_code = ? AND above_amount < CAST(? AS numeric)`,
    [scope.tenantId, scope.environment, caseType, money.currencyCode, money.amount],
  );
  const rule = result.rows[0];
  return rule ? { approvalsRequired: rule.approvals_required, approverRole: rule.approver_role } : ONE_APPROVAL;
}

interface RuleRow {
  currency_code: string;
  above_amount: string;
  approvals_required: number;
  approver_role: OrgRole | null;
}

function toRule(row: RuleRow): ApprovalRule {
  return {
    currencyCode: row.currency_code,
    aboveAmount: formatAmount(row.above_amount, row.currency_code),
    approvalsRequired: row.approvals_required,
    approverRole: row.approver_role,
  };
}

/** A case type's policy: read by whoever reads its cases, replaced by an org-admin, audited. */
export class ApprovalPolicies {
  constructor(
    private readonly db: Db,
    private readonly caseType: { type: CaseType; approveScope: string },
  ) {}

  async get(scope: RecordScope): Promise<ApprovalPolicy> {
    return this.read(this.db, scope);
  }

  /** The whole policy at once, under the policy's row lock: concurrent replacements apply one after the other. */
  async replace(scope: RecordScope, claims: InternalClaims, body: ApprovalPolicyBody): Promise<ApprovalPolicy> {
    this.checkRules(body);
    const actor = auditActorFieldsOf(claims);
    const { tenantId, environment } = scope;
    const key = [tenantId, environment, this.caseType.type];
    return this.db.transaction(async (tx) => {
      await prepared(
        tx,
        `INSERT INTO approval_policies (tenant_id, environment, case_type, updated_by) VALUES (?, ?, ?, ?)
         ON CONFLICT (tenant_id, environment, case_type) DO UPDATE SET updated_by = EXCLUDED.updated_by, updated_at = now()`,
        [...key, actor.actorId],
      );
      const before = await this.read(tx, scope);
      await prepared(tx, 'DELETE FROM approval_policy_rules WHERE tenant_id = ? AND environment = ? AND case_type = ?', key);
      for (const rule of body.rules) {
        await prepared(
          tx,
          `INSERT INTO approval_policy_rules (tenant_id, environment, case_type, currency_code, above_amount, approvals_required, approver_role)
           VALUES (?, ?, ?, ?, CAST(? AS numeric), ?, ?)`,
          [...key, rule.currencyCode, rule.aboveAmount, rule.approvalsRequired, rule.approverRole],
        );
      }
      const after = await this.read(tx, scope);
      await enqueueOutbox(tx, [
        auditRecordMessage({
          tenantId,
          environment,
          action: 'approval_policy.updated',
          actorType: actor.actorType,
          actorId: actor.actorId,
          targetType: 'approval_policy',
          targetId: this.caseType.type,
          metadata: { ...actor.metadata, before: { rules: before.rules }, after: { rules: after.rules } },
        }),
      ]);
      return after;
    });
  }

  /** What the schema cannot see: amounts at the currency's scale, and roles that can approve at all. */
  private checkRules(body: ApprovalPolicyBody): void {
    body.rules.forEach((rule, index) => {
      const problem = checkAmount(rule.aboveAmount, rule.currencyCode, { allowZero: true });
      if (problem) {
        throw new AppError('INVALID_AMOUNT', `rules[${index}].aboveAmount is not a valid ${rule.currencyCode} amount (${problem})`, {
          field: `rules.${index}.aboveAmount`,
          problem,
        });
      }
      if (rule.approverRole && !hasScope(scopesOfRole(rule.approverRole), this.caseType.approveScope)) {
        throw new AppError(
          'VALIDATION_ERROR',
          `The ${rule.approverRole} role does not grant ${this.caseType.approveScope}, so it cannot approve`,
          {
            field: `rules.${index}.approverRole`,
          },
        );
      }
    });
  }

  private async read(db: Db | Tx, scope: RecordScope): Promise<ApprovalPolicy> {
    const key = [scope.tenantId, scope.environment, this.caseType.type];
    const policy = await prepared<{ rows: Array<{ updated_by: string; updated_at: Date }> }>(
      db,
      'SELECT updated_by, updated_at FROM approval_policies WHERE tenant_id = ? AND environment = ? AND case_type = ?',
      key,
    );
    const rules = await prepared<{ rows: RuleRow[] }>(
      db,
      `SELECT currency_code, above_amount, approvals_required, approver_role FROM approval_policy_rules
       WHERE tenant_id = ? AND environment = ? AND case_type = ? ORDER BY currency_code`,
      key,
    );
    const header = policy.rows[0];
    return { rules: rules.rows.map(toRule), updatedBy: header?.updated_by ?? null, updatedAt: header?.updated_at.toISOString() ?? null };
  }
}
