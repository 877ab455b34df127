import type { Deposit, DepositQuery, MatchRule, Page } from '@wallet/contracts';
import { auditActorFieldsOf, auditRecordMessage, type Db, enqueueOutbox, type InternalClaims } from '@wallet/kit';
import { type StoredStatementLine, unmatchedLinesLike } from '../bank-statements/statement-lines';
import { findMatchRule, type MatchScope, saveMatchRule } from './statement-matches-store';

const DAY_MS = 86_400_000;
/** Candidates read per slip before the reference rule, and kept after it. */
const CANDIDATES_READ = 20;
const CANDIDATES_KEPT = 5;

const referenceKey = (reference: string): string => reference.trim().toLowerCase();

function referenceAccepts(rule: MatchRule['reference'], slip: string, line: string): boolean {
  const [a, b] = [referenceKey(slip), referenceKey(line)];
  if (rule === 'any') return true;
  if (rule === 'exact') return a === b;
  return a.includes(b) || b.includes(a);
}

/** The calendar days (UTC, as statement dates are) within the window around when the slip says the money was paid in. */
function windowOf(deposit: Deposit, days: number): { from: string; to: string } {
  const at = Date.parse(deposit.depositedAt ?? deposit.createdAt);
  const day = (offset: number) => new Date(at + offset * DAY_MS).toISOString().slice(0, 10);
  return { from: day(-days), to: day(days) };
}

export interface MatchSuggestion {
  deposit: Deposit;
  candidates: Array<Omit<StoredStatementLine, 'seq'>>;
}

/**
 * The tenant's match rule, and what it finds: for each of the newest pending slips, the unmatched
 * lines of its bank, currency and amount (exact: money is never matched approximately) dated
 * within the window, whose reference the rule accepts. One indexed read per slip, bounded.
 */
export class MatchSuggestions {
  constructor(private readonly deps: { db: Db; deposits: { list(scope: MatchScope, query: DepositQuery): Promise<Page<Deposit>> } }) {}

  rule(scope: MatchScope): Promise<MatchRule> {
    return findMatchRule(this.deps.db, scope);
  }

  async setRule(scope: MatchScope, claims: InternalClaims, rule: MatchRule): Promise<MatchRule> {
    const actor = auditActorFieldsOf(claims);
    await this.deps.db.transaction(async (tx) => {
      const before = await findMatchRule(tx, scope);
      await saveMatchRule(tx, scope, rule, actor.actorId);
      await enqueueOutbox(tx, [
        auditRecordMessage({
          tenantId: scope.tenantId,
          environment: scope.environment,
          action: 'reconciliation.match_rule_updated',
          actorType: actor.actorType,
          actorId: actor.actorId,
          targetType: 'match_rule',
          targetId: `${scope.tenantId}:${scope.environment}`,
          metadata: { ...actor.metadata, before, after: rule },
        }),
      ]);
    });
    return rule;
  }

  async suggest(scope: MatchScope, limit: number): Promise<{ rule: MatchRule; data: MatchSuggestion[] }> {
    const rule = await this.rule(scope);
    const slips = await this.deps.deposits.list(scope, { source: 'bank_slip', status: 'pending', limit });
    const data = await Promise.all(
      slips.data.map(async (deposit) => ({ deposit, candidates: await this.candidatesOf(scope, rule, deposit) })),
    );
    return { rule, data };
  }

  private async candidatesOf(scope: MatchScope, rule: MatchRule, deposit: Deposit): Promise<MatchSuggestion['candidates']> {
    if (!deposit.bankCode || !deposit.slipReference) return [];
    const like = {
      bankCode: deposit.bankCode,
      currencyCode: deposit.currencyCode,
      amount: deposit.amount,
      ...windowOf(deposit, rule.dateWindowDays),
    };
    const lines = await unmatchedLinesLike(this.deps.db, scope, like, CANDIDATES_READ);
    const reference = deposit.slipReference;
    return lines
      .filter((line) => referenceAccepts(rule.reference, reference, line.reference))
      .slice(0, CANDIDATES_KEPT)
      .map(({ seq: _seq, ...line }) => line);
  }
}
