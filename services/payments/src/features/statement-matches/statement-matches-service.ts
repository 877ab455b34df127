import {
  AppError,
  auditActorFieldsOf,
  auditRecordMessage,
  type Db,
  enqueueOutbox,
  type InternalClaims,
  type OutboxMessage,
  pageBySeq,
} from '@wallet/kit';
import { type Deposit, depositRoutes, newId, type Page, type ProposeStatementMatchBody, type StatementMatch } from '@wallet/contracts';
import { checkDeclaredActor, type MemberDirectory, requirePermittedMember } from '@wallet/money-commands';
import { findStatementLine, type StoredStatementLine } from '../bank-statements/statement-lines';
import type { DepositsService } from '../deposits/deposits-service';
import { decideMatch, findMatch, insertMatch, listMatches, type MatchScope, type StoredMatch } from './statement-matches-store';

/** Who may propose and decide a match: whoever may verify a slip, since a match verifies one. */
const MATCH_SCOPE = depositRoutes.verify.scope;

export interface StatementMatchesDeps {
  db: Db;
  members: Pick<MemberDirectory, 'memberOf'>;
  deposits: Pick<DepositsService, 'get' | 'creditMatched'>;
}

/** What the slip and the line must share for one to be the other's money: the rest is the reason's to explain. */
function mismatchOf(deposit: Deposit, line: StoredStatementLine): Record<string, string> | null {
  const differs: Record<string, string> = {};
  if (deposit.bankCode !== line.bankCode) differs.bankCode = `${deposit.bankCode} ≠ ${line.bankCode}`;
  if (deposit.currencyCode !== line.currencyCode) differs.currencyCode = `${deposit.currencyCode} ≠ ${line.currencyCode}`;
  if (deposit.amount !== line.amount) differs.amount = `${deposit.amount} ≠ ${line.amount}`;
  return Object.keys(differs).length > 0 ? differs : null;
}

/**
 * Matches of a pending bank slip and a statement line that the exact rule did not pair, under
 * maker-checker (docs/decisions/statement-matches.md): one member proposes with a reason, another
 * approves, which credits the slip through the ledger with that line, or rejects.
 */
export class StatementMatchesService {
  constructor(private readonly deps: StatementMatchesDeps) {}

  async propose(scope: MatchScope, claims: InternalClaims, body: ProposeStatementMatchBody): Promise<StatementMatch> {
    checkDeclaredActor(claims, body.proposedBy, 'proposedBy');
    const deposit = await this.deps.deposits.get(scope, body.depositId);
    await requirePermittedMember(this.deps.members, scope.tenantId, body.proposedBy, MATCH_SCOPE);
    if (deposit.source !== 'bank_slip' || deposit.status !== 'pending')
      throw new AppError('DEPOSIT_NOT_PENDING', `The deposit is a ${deposit.source} ${deposit.status}, not a pending bank slip`, {
        status: deposit.status,
      });
    const line = await this.lineOf(scope, body.statementLineId);
    const differs = mismatchOf(deposit, line);
    if (differs) throw new AppError('MATCH_MISMATCH', 'The slip and the line differ in bank, currency or amount', differs);
    return this.deps.db.transaction(async (tx) => {
      const match = await insertMatch(tx, scope, { id: newId('statementMatch'), lineId: line.id, ...body });
      if (!match)
        throw new AppError('STATEMENT_LINE_TAKEN', 'The slip or the line is in another pending match', { statementLineId: line.id });
      await enqueueOutbox(tx, [this.audit(scope, claims, 'statement_match.proposed', match, body.proposedBy, { reason: body.reason })]);
      return this.show(scope, match, deposit, line);
    });
  }

  /** A checker's approval: the slip credited through the ledger with the line, and the match approved, in one transaction. */
  async approve(scope: MatchScope, claims: InternalClaims, id: string, actorId: string): Promise<StatementMatch> {
    const match = await this.requireDecidable(scope, claims, id, actorId);
    const credited = await this.deps.deposits.creditMatched(
      scope,
      claims,
      { depositId: match.depositId, lineId: match.lineId, actorId },
      async (tx) => {
        const approved = await decideMatch(tx, scope, id, { status: 'approved', decidedBy: actorId, rejectionReason: null });
        if (!approved) throw notPending();
        return [this.audit(scope, claims, 'statement_match.approved', approved, actorId, { statementLineId: match.lineId })];
      },
    );
    return this.show(scope, await this.stored(scope, id), credited.shown);
  }

  async reject(scope: MatchScope, claims: InternalClaims, id: string, body: { actorId: string; reason: string }): Promise<StatementMatch> {
    await this.requireDecidable(scope, claims, id, body.actorId);
    const rejected = await this.deps.db.transaction(async (tx) => {
      const decided = await decideMatch(tx, scope, id, { status: 'rejected', decidedBy: body.actorId, rejectionReason: body.reason });
      if (!decided) throw notPending();
      await enqueueOutbox(tx, [this.audit(scope, claims, 'statement_match.rejected', decided, body.actorId, { reason: body.reason })]);
      return decided;
    });
    return this.show(scope, rejected);
  }

  async list(
    scope: MatchScope,
    query: { cursor?: string | undefined; limit: number; status?: StoredMatch['status'] | undefined },
  ): Promise<Page<StatementMatch>> {
    const page = await pageBySeq(
      query,
      (beforeSeq) => listMatches(this.deps.db, scope, { ...query, beforeSeq }),
      (match) => match,
    );
    return { ...page, data: await Promise.all(page.data.map((match) => this.show(scope, match))) };
  }

  /** A decision's preconditions: the match pending, the checker permitted and not its proposer. */
  private async requireDecidable(scope: MatchScope, claims: InternalClaims, id: string, actorId: string): Promise<StoredMatch> {
    checkDeclaredActor(claims, actorId, 'actorId');
    const match = await this.stored(scope, id);
    if (match.status !== 'pending') throw notPending(match.status);
    if (match.proposedBy === actorId)
      throw new AppError('SELF_APPROVAL_FORBIDDEN', 'The proposer of a match cannot decide it', { actorId });
    await requirePermittedMember(this.deps.members, scope.tenantId, actorId, MATCH_SCOPE);
    return match;
  }

  private async stored(scope: MatchScope, id: string): Promise<StoredMatch> {
    const match = await findMatch(this.deps.db, scope, id);
    if (!match) throw new AppError('MATCH_NOT_FOUND', 'No such match');
    return match;
  }

  private async lineOf(scope: MatchScope, id: string): Promise<StoredStatementLine> {
    const line = await findStatementLine(this.deps.db, scope, id);
    if (!line) throw new AppError('STATEMENT_LINE_NOT_FOUND', 'No such statement line');
    if (line.depositId) throw new AppError('STATEMENT_LINE_TAKEN', 'The statement line is matched already', { depositId: line.depositId });
    return line;
  }

  /** The match with its slip and its line as they are now (or as the caller just read them). */
  private async show(scope: MatchScope, match: StoredMatch, deposit?: Deposit, line?: StoredStatementLine): Promise<StatementMatch> {
    const [slip, statementLine] = await Promise.all([
      deposit ?? this.deps.deposits.get(scope, match.depositId),
      line ?? findStatementLine(this.deps.db, scope, match.lineId),
    ]);
    if (!statementLine) throw new Error(`match ${match.id} names line ${match.lineId}, which cannot be found`);
    const { seq: _seq, ...shownLine } = statementLine;
    return {
      id: match.id,
      depositId: match.depositId,
      statementLineId: match.lineId,
      reason: match.reason,
      proposedBy: match.proposedBy,
      status: match.status,
      decidedBy: match.decidedBy,
      decidedAt: match.decidedAt ? match.decidedAt.toISOString() : null,
      rejectionReason: match.rejectionReason,
      deposit: slip,
      statementLine: shownLine,
      createdAt: match.createdAt.toISOString(),
    };
  }

  private audit(
    scope: MatchScope,
    claims: InternalClaims,
    action: string,
    match: StoredMatch,
    actorId: string,
    extra: Record<string, unknown>,
  ): OutboxMessage {
    const actor = auditActorFieldsOf(claims);
    return auditRecordMessage({
      tenantId: scope.tenantId,
      environment: scope.environment,
      action,
      actorType: actor.actorType,
      actorId,
      targetType: 'statement_match',
      targetId: match.id,
      metadata: {
        ...actor.metadata,
        callerActorId: actor.actorId,
        depositId: match.depositId,
        statementLineId: match.lineId,
        after: { status: match.status },
        ...extra,
      },
    });
  }
}

function notPending(status = 'decided'): AppError {
  return new AppError('MATCH_NOT_PENDING', `The match is ${status}, not pending`, { status });
}
