import { timingSafeEqual } from 'node:crypto';
import BigNumber from 'bignumber.js';
import {
  ACCOUNTS,
  type BankSlipBody,
  type Deposit,
  type DepositQuery,
  type ReopenDepositBody,
  depositRoutes,
  type LedgerResultV1,
  momoWebhookSignature,
  type MomoWebhookBody,
  newId,
  type Page,
} from '@wallet/contracts';
import {
  AppError,
  auditActorFieldsOf,
  auditRecordMessage,
  currentContext,
  type Db,
  type InternalClaims,
  enqueueOutbox,
  type Logger,
  newPlatformEventMessage,
  type OutboxMessage,
  type OutboxRelay,
  pageInOrder,
  type Tx,
} from '@wallet/kit';
import {
  checkDeclaredActor,
  type MemberDirectory,
  MoneyCommand,
  type MoneyCommandDeclaration,
  type Postings,
  requirePermittedMember,
  type TakenStep,
  type CommandResult,
} from '@wallet/money-commands';
import { quoteFee } from '../fees/quote-fee';
import type { TenantDirectory } from '@wallet/kit';
import { depositCharge, depositCommandId, depositPostingCommand } from './deposit-posting';
import {
  DEPOSIT,
  DEPOSIT_POSTING,
  type DepositScope,
  type DepositWallet,
  findDeposit,
  findMomoDeposit,
  findScopedWallet,
  findWalletAnywhere,
  insertRefusedMomo,
  insertSlip,
  listDeposits,
  MOMO_DEPOSIT_RECORDS,
  type NewMomoDeposit,
  recordSlipVerification,
  reopenSlip,
  type StoredDeposit,
  toDeposit,
} from './deposits-store';
import type { MomoProviderDirectory, TenantMomoProvider } from './momo-provider-directory';
import { claimLine, claimMatchingLine } from '../bank-statements/statement-lines';

/** How far a webhook's timestamp may be from the server's clock, either side (docs/decisions/momo-webhook.md). */
export const WEBHOOK_TIMESTAMP_WINDOW_MS = 300_000;

export interface DepositsDeps {
  db: Db;
  relay: OutboxRelay;
  tenants: TenantDirectory;
  providers: MomoProviderDirectory;
  /** Who may verify a slip: identity answers for the member at each verification. */
  members: Pick<MemberDirectory, 'memberOf'>;
  postings: Postings;
  logger: Logger;
  /** How long a credit waits for the ledger's answer to show its journalEntryId; the deposit is completed either way. */
  replyTimeoutMs: number;
}

function notFound(): AppError {
  return new AppError('DEPOSIT_NOT_FOUND', 'No such deposit');
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The one answer to every delivery that does not verify, whatever failed (the wallet, the provider or
 * the signature): it carries no details, so an unsigned caller learns nothing of which ids exist.
 */
function unverifiedWebhook(): AppError {
  return new AppError('INVALID_WEBHOOK_SIGNATURE', 'The webhook signature does not verify');
}

function requireFreshTimestamp(timestamp: string, nowMs: number): void {
  const sentAt = Date.parse(timestamp);
  if (!Number.isFinite(sentAt) || Math.abs(nowMs - sentAt) > WEBHOOK_TIMESTAMP_WINDOW_MS) {
    throw new AppError('STALE_WEBHOOK_TIMESTAMP', 'The webhook timestamp is more than 300 seconds from the server time');
  }
}

/** The providers a delivery may come from: the one it names, or every provider of the tenant when it names none. */
function candidatesFor(providers: TenantMomoProvider[], providerCode: string | undefined): TenantMomoProvider[] {
  return providerCode === undefined ? providers : providers.filter((provider) => provider.providerCode === providerCode);
}

/** The candidate whose secret verifies the delivery; none when no secret does, or more than one does (it would be a guess). */
function soleSigner(candidates: TenantMomoProvider[], body: MomoWebhookBody, nowMs: number): TenantMomoProvider | undefined {
  // Every candidate is tried: the time taken does not tell which one matched.
  const signers = candidates.filter((provider) => signatureMatches(provider, body, nowMs));
  return signers.length === 1 ? signers[0] : undefined;
}

function signatureMatches(provider: TenantMomoProvider, body: MomoWebhookBody, nowMs: number): boolean {
  const fields = {
    transactionId: body.transactionId,
    walletId: body.walletId,
    amountText: body.amount,
    currencyCode: body.currencyCode,
    phoneNumber: body.phoneNumber,
    timestamp: body.timestamp,
  };
  let matched = false;
  for (const { secret, validUntil } of provider.webhookSecrets) {
    if (validUntil !== null && Date.parse(validUntil) <= nowMs) continue;
    // Every secret is tried: the time taken does not tell which one matched.
    if (constantTimeEqual(momoWebhookSignature(secret, fields), body.signature)) matched = true;
  }
  return matched;
}

/** A verification of a slip, as its transaction takes it. */
interface SlipVerification {
  scope: DepositScope;
  id: string;
  actorId: string;
  actor: ReturnType<typeof auditActorFieldsOf>;
}

/** The audit record of a verification: the verifier, the slip's status before (pending) and after. */
function slipAudit(
  slip: SlipVerification,
  action: 'deposit.verified' | 'deposit.rejected' | 'deposit.reopened',
  after: StoredDeposit,
  extra: Record<string, unknown>,
  before: StoredDeposit['status'] = 'pending',
): OutboxMessage {
  const { scope, actor } = slip;
  return auditRecordMessage({
    tenantId: scope.tenantId,
    environment: scope.environment,
    action,
    actorType: actor.actorType,
    actorId: slip.actorId,
    targetType: 'deposit',
    targetId: slip.id,
    metadata: {
      ...actor.metadata,
      callerActorId: actor.actorId,
      before: { status: before },
      after: { status: after.status },
      ...extra,
    },
  });
}

export interface WebhookOutcome {
  /** 201 on the first delivery (202 while the ledger has not posted it), 200 on a repeat of a recorded transaction. */
  status: 200 | 201 | 202;
  deposit: Deposit;
}

/**
 * What deposits' list entry (src/movements.ts) reads of their declaration: the one step both ways
 * in post (a webhook's credit, a verified slip), finished by one finisher.
 */
export const DEPOSIT_CREDIT = {
  recordType: DEPOSIT.type,
  approval: 'none',
  records: MOMO_DEPOSIT_RECORDS,
  step: DEPOSIT_POSTING,
  find: (db: Db | Tx, scope: DepositScope, id: string) => findDeposit(db, scope, id),
  show: toDeposit,
  // A pending slip and a refused delivery are announced where they are recorded (no ledger result makes them).
  announces: { posted: 'deposit.completed' },
} as const satisfies Pick<
  MoneyCommandDeclaration<NewMomoDeposit, StoredDeposit, Deposit>,
  'recordType' | 'approval' | 'records' | 'step' | 'find' | 'show' | 'announces'
>;

/**
 * A webhook's credit as a money command: the deposit and its `ledger.post.v1` in one statement,
 * deduplicated by the provider's transaction id (no Idempotency-Key: the provider's repeat is the
 * retry); completed when written, final once the ledger's entry is recorded.
 */
function momoDepositCommand(logger: Logger): MoneyCommandDeclaration<NewMomoDeposit, StoredDeposit, Deposit> {
  return {
    ...DEPOSIT_CREDIT,
    amount: { limit: 'tenant', echoAmount: true },
    keyWrite: 'natural-key',
    created: (scope, draft, seq) => ({
      ...draft,
      ...scope,
      seq,
      journalEntryId: null,
      bankCode: null,
      slipReference: null,
      depositedAt: null,
      depositorName: null,
      verifiedBy: null,
      verifiedAt: null,
    }),
    posted: (deposit, journalEntryId) => ({ ...deposit, journalEntryId }),
    isPosted: (deposit) => deposit.journalEntryId !== null,
    // A credit the ledger refuses stays completed, awaiting the ledger (a defect to look into, logged), never failed.
    isRefused: () => false,
    refusalOf: (deposit) => new AppError('VALIDATION_ERROR', `The ledger refused deposit ${deposit.id}`),
    onUnfailingRefusal: (deposit, failureCode) =>
      logger.error({ depositId: deposit.id, commandId: deposit.commandId, failureCode }, 'the ledger refused a deposit credit'),
    repeatOf: (db, scope, draft) => findMomoDeposit(db, scope, draft.providerCode, draft.externalRef),
    notFound,
  };
}

/**
 * Deposits: mobile money webhooks credit at once, bank slips wait for verification against an
 * imported statement. A credit is the deposit row and its `ledger.post.v1` together (through the
 * outbox); the ledger's answer, from the reply or its event, fills journalEntryId.
 */
export class DepositsService extends MoneyCommand<NewMomoDeposit, StoredDeposit, Deposit> {
  constructor(private readonly services: DepositsDeps) {
    super(services, momoDepositCommand(services.logger));
  }

  // ---- mobile money webhook ----

  /**
   * Checks that need no ids come first (the amount, the clock). Then the wallet, the provider and the
   * signature, which an unsigned caller could probe for ids, all fail as one 401; only a verified
   * delivery hears more: a repeat (200), the tenant's limits (422) or its credit.
   */
  async receiveMomoWebhook(body: MomoWebhookBody): Promise<WebhookOutcome> {
    this.checkAmount(body);
    const nowMs = Date.now();
    requireFreshTimestamp(body.timestamp, nowMs);

    const wallet = await findWalletAnywhere(this.deps.db, body.walletId);
    if (!wallet) throw unverifiedWebhook();
    const providerCode = await this.signingProvider(wallet, body, nowMs);

    const existing = await findMomoDeposit(this.deps.db, wallet, providerCode, body.transactionId);
    if (existing) return { status: 200, deposit: toDeposit(existing) };

    const tenant = await this.services.tenants.require(wallet.tenantId);
    const refusal = this.refusalOf(tenant, wallet, body);
    if (refusal) {
      const rejected = await this.recordRejectedMomo(wallet, providerCode, body, refusal.code);
      throw new AppError(refusal.code, refusal.message, { ...refusal.details, depositId: rejected.id });
    }

    const charge = depositCharge(
      await quoteFee(this.deps.db, wallet.tenantId, 'deposit', body.currencyCode, body.amount),
      body.amount,
      body.currencyCode,
    );
    const id = newId('deposit');
    const command = depositPostingCommand({
      depositId: id,
      source: 'momo',
      floatAccount: ACCOUNTS.momoFloat.nameFor(providerCode),
      wallet,
      amount: body.amount,
      charge,
    });
    const draft: NewMomoDeposit = {
      id,
      walletId: wallet.id,
      amount: body.amount,
      currencyCode: body.currencyCode,
      fee: charge.fee,
      commission: charge.commission,
      feeScheduleId: charge.scheduleId,
      feeRuleId: charge.ruleId,
      source: 'momo',
      externalRef: body.transactionId,
      status: 'completed',
      rejectionReason: null,
      commandId: command.commandId,
      providerCode,
      phoneNumber: body.phoneNumber,
      correlationId: currentContext()?.correlationId ?? null,
      createdAt: new Date(),
    };
    const credited = await this.run({
      scope: { tenantId: wallet.tenantId, environment: wallet.environment },
      draft,
      command,
      answers: null,
    });
    return { status: credited.status, deposit: credited.shown };
  }

  /**
   * The provider that signed the delivery: the one it names, or, when it names none, the only one
   * of the tenant's providers whose secret verifies it (docs/decisions/momo-webhook.md). A cached
   * list that yields none is fetched once more: a provider registered, or a secret rotated, since.
   * A delivery that does not verify is recorded rejected, for the back office, when it points at
   * one provider of the tenant; the answer is the same either way.
   */
  private async signingProvider(wallet: DepositWallet, body: MomoWebhookBody, nowMs: number): Promise<string> {
    let lookup = await this.services.providers.providersOf(wallet.tenantId);
    let candidates = candidatesFor(lookup.providers, body.providerCode);
    let signer = soleSigner(candidates, body, nowMs);
    if (!signer && !lookup.fresh) {
      lookup = await this.services.providers.providersOf(wallet.tenantId, { fresh: true });
      candidates = candidatesFor(lookup.providers, body.providerCode);
      signer = soleSigner(candidates, body, nowMs);
    }
    if (signer) return signer.providerCode;
    const known = candidates.length === 1 ? candidates[0] : undefined;
    if (known) await this.recordRejectedMomo(wallet, known.providerCode, body, 'INVALID_WEBHOOK_SIGNATURE');
    throw unverifiedWebhook();
  }

  /** Tenant limits and the wallet's currency, in the order docs/decisions/momo-webhook.md lists them. */
  private refusalOf(
    tenant: { allowedCurrencies: string[]; maxTransactionAmount: string },
    wallet: DepositWallet,
    body: { amount: string; currencyCode: string },
  ): AppError | null {
    const overLimit = this.limitError(body.amount, tenant.maxTransactionAmount);
    if (overLimit) return overLimit;
    if (!tenant.allowedCurrencies.includes(body.currencyCode)) {
      return new AppError('CURRENCY_NOT_ALLOWED', `${body.currencyCode} is not one of the tenant's allowed currencies`, {
        currencyCode: body.currencyCode,
        allowedCurrencies: tenant.allowedCurrencies,
      });
    }
    if (wallet.currencyCode !== body.currencyCode) {
      return new AppError('CURRENCY_MISMATCH', `The wallet holds ${wallet.currencyCode}, not ${body.currencyCode}`, {
        walletCurrencyCode: wallet.currencyCode,
        currencyCode: body.currencyCode,
      });
    }
    return null;
  }

  /** A refused delivery, kept for audit; rejected rows stay out of the transactionId's unique index. */
  private async recordRejectedMomo(
    wallet: DepositWallet,
    providerCode: string,
    body: MomoWebhookBody,
    reason: string,
  ): Promise<StoredDeposit> {
    const scope = { tenantId: wallet.tenantId, environment: wallet.environment };
    // Its event waits for the relay's next pass: events are not on the money path.
    return this.deps.db.transaction(async (tx) => {
      const stored = await insertRefusedMomo(tx, scope, this.refusedMomoDraft(wallet, providerCode, body, reason));
      await enqueueOutbox(tx, [newPlatformEventMessage(scope, 'deposit.rejected', toDeposit(stored))]);
      return stored;
    });
  }

  private refusedMomoDraft(wallet: DepositWallet, providerCode: string, body: MomoWebhookBody, reason: string) {
    return {
      id: newId('deposit'),
      walletId: wallet.id,
      amount: body.amount,
      currencyCode: body.currencyCode,
      fee: '0',
      commission: '0',
      feeScheduleId: null,
      feeRuleId: null,
      source: 'momo',
      externalRef: body.transactionId,
      status: 'rejected',
      rejectionReason: reason,
      commandId: null,
      providerCode,
      phoneNumber: body.phoneNumber,
      correlationId: currentContext()?.correlationId ?? null,
      createdAt: new Date(),
    } satisfies Parameters<typeof insertRefusedMomo>[2];
  }

  /**
   * Finishes deposits from the ledger's events, credits and verified slips alike (one step), and
   * logs a credit the ledger refused: the deposit stays completed, awaiting the ledger.
   */
  override async finishFromEvents(tx: Tx, results: readonly LedgerResultV1[]): Promise<void> {
    for (const result of results) if (result.status === 'rejected') this.logLedgerRejection(result);
    await super.finishFromEvents(tx, results);
  }

  private logLedgerRejection(result: LedgerResultV1): void {
    this.services.logger.error(
      { commandId: result.commandId, reference: result.reference, error: result.error },
      'the ledger refused a deposit credit',
    );
  }

  // ---- bank slips ----

  async submitSlip(
    scope: DepositScope,
    body: BankSlipBody,
    alsoInTransaction?: (tx: Tx, deposit: Deposit) => Promise<void>,
  ): Promise<Deposit> {
    this.checkAmount(body);
    const wallet = await findScopedWallet(this.deps.db, scope, body.walletId);
    if (!wallet) throw new AppError('WALLET_NOT_FOUND', 'No such wallet');
    const tenant = await this.services.tenants.require(scope.tenantId);
    const refusal = this.refusalOf(tenant, wallet, body);
    if (refusal) throw refusal;
    return this.deps.db.transaction(async (tx) => {
      const stored = await insertSlip(tx, scope, {
        id: newId('deposit'),
        walletId: wallet.id,
        amount: body.amount,
        currencyCode: body.currencyCode,
        source: 'bank_slip',
        externalRef: body.slipReference,
        status: 'pending',
        bankCode: body.bankCode,
        slipReference: body.slipReference,
        depositedAt: body.depositedAt === undefined ? null : new Date(body.depositedAt),
        depositorName: body.depositorName ?? null,
        correlationId: currentContext()?.correlationId ?? null,
      });
      const deposit = toDeposit(stored);
      await enqueueOutbox(tx, [newPlatformEventMessage(scope, 'deposit.pending', deposit)]);
      await alsoInTransaction?.(tx, deposit);
      return deposit;
    });
  }

  /**
   * Matches a pending slip to an unused statement line of the same bank, currency, amount and
   * reference: completed and credited (line, deposit, ledger command and audit record in one
   * transaction), or rejected with NO_MATCHING_STATEMENT_ENTRY. Only a permitted verifier gets
   * that far: a refused one leaves the slip pending and records nothing. The credit is the
   * webhook's money command, taken as a step of the slip (runStep): its answer, the ledger's.
   */
  async verify(scope: DepositScope, claims: InternalClaims, id: string, actorId: string): Promise<Deposit> {
    await this.requireVerifier(scope, claims, id, actorId);
    const actor = auditActorFieldsOf(claims);
    const verified = await this.runStep({
      scope,
      id,
      commandId: depositCommandId(id),
      write: (tx) => this.verifyIn(tx, { scope, id, actorId, actor }),
    });
    return verified.shown;
  }

  /**
   * A verification credits a wallet on the verifier's word, so the verifier is held to a checker's
   * rule (docs/decisions/maker-checker.md): the caller's declared actor (403 ACTOR_MISMATCH), and
   * an active member of the tenant whose role grants the route's scope (403 ACTOR_NOT_PERMITTED).
   * Another tenant's slip is 404 before the member is asked, as a case is to another tenant's checker.
   */
  private async requireVerifier(scope: DepositScope, claims: InternalClaims, id: string, actorId: string): Promise<void> {
    checkDeclaredActor(claims, actorId, 'actorId');
    if (!(await findDeposit(this.deps.db, scope, id))) throw notFound();
    await requirePermittedMember(this.services.members, scope.tenantId, actorId, depositRoutes.verify.scope);
  }

  /** The verification's step: the slip completed with its line, command and audit record, or rejected with its audit record. */
  private async verifyIn(tx: Tx, slip: SlipVerification): Promise<TakenStep<StoredDeposit>> {
    const { scope, actorId } = slip;
    const { deposit, wallet } = await lockPendingSlip(tx, scope, slip.id);
    const line = await claimMatchingLine(tx, scope, {
      depositId: deposit.id,
      bankCode: deposit.bankCode,
      currencyCode: deposit.currencyCode,
      reference: deposit.slipReference,
      amount: deposit.amount,
    });
    if (!line) {
      const rejectionReason = 'NO_MATCHING_STATEMENT_ENTRY';
      const rejected = await recordSlipVerification(tx, deposit.id, { status: 'rejected', rejectionReason, verifiedBy: actorId });
      const alsoSent = [
        slipAudit(slip, 'deposit.rejected', rejected, { rejectionReason }),
        newPlatformEventMessage(scope, 'deposit.rejected', toDeposit(rejected)),
      ];
      return { record: rejected, command: null, alsoSent };
    }
    return completeSlip(tx, slip, { deposit, wallet, lineId: line.id });
  }

  /**
   * Credits a pending slip with a statement line a checker chose (a workbench match,
   * statement-matches): `alsoInTx`'s writes first, then the line claimed, the slip completed and
   * its credit sent to the ledger as a verification's, all in one transaction.
   */
  async creditMatched(
    scope: DepositScope,
    claims: InternalClaims,
    match: { depositId: string; lineId: string; actorId: string },
    alsoInTx: (tx: Tx) => Promise<readonly OutboxMessage[]>,
  ): Promise<CommandResult<Deposit>> {
    const slip: SlipVerification = { scope, id: match.depositId, actorId: match.actorId, actor: auditActorFieldsOf(claims) };
    return this.runStep({
      scope,
      id: match.depositId,
      commandId: depositCommandId(match.depositId),
      write: async (tx) => {
        // The caller's part first: of concurrent approvals of one match, the first decides and the others find it decided.
        const decided = await alsoInTx(tx);
        const pending = await lockPendingSlip(tx, scope, match.depositId);
        if (!(await claimLine(tx, scope, match.lineId, match.depositId)))
          throw new AppError('STATEMENT_LINE_TAKEN', 'The statement line was matched meanwhile', { statementLineId: match.lineId });
        const taken = await completeSlip(tx, slip, { ...pending, lineId: match.lineId });
        return { ...taken, alsoSent: [...(taken.alsoSent ?? []), ...decided] };
      },
    });
  }

  /**
   * Opens again a slip rejected for want of its statement line, held to the verifier's rules:
   * pending, its verdict cleared, audited with the reason and announced as pending. The line that
   * arrived later can then verify it, which clears the unmatched line reconciliation reports.
   */
  async reopen(scope: DepositScope, claims: InternalClaims, id: string, body: ReopenDepositBody): Promise<Deposit> {
    await this.requireVerifier(scope, claims, id, body.actorId);
    const slip: SlipVerification = { scope, id, actorId: body.actorId, actor: auditActorFieldsOf(claims) };
    return this.deps.db.transaction(async (tx) => {
      const deposit = await findDeposit(tx, scope, id, { forUpdate: true });
      if (!deposit) throw notFound();
      if (deposit.source !== 'bank_slip' || deposit.status !== 'rejected' || deposit.rejectionReason !== 'NO_MATCHING_STATEMENT_ENTRY') {
        throw new AppError('DEPOSIT_NOT_REOPENABLE', 'Only a bank slip rejected for want of its statement line can be reopened', {
          status: deposit.status,
          rejectionReason: deposit.rejectionReason,
        });
      }
      const reopened = await reopenSlip(tx, id);
      const shown = toDeposit(reopened);
      await enqueueOutbox(tx, [
        slipAudit(slip, 'deposit.reopened', reopened, { reason: body.reason, rejectionReason: deposit.rejectionReason }, 'rejected'),
        newPlatformEventMessage(scope, 'deposit.pending', shown),
      ]);
      return shown;
    });
  }

  // ---- reads ----

  list(scope: DepositScope, query: DepositQuery): Promise<Page<Deposit>> {
    return pageInOrder(query, (after) => listDeposits(this.deps.db, scope, { ...query, after }), toDeposit);
  }
}

/** A pending bank slip, locked (its lock serializes everything that decides it), and its wallet. */
async function lockPendingSlip(
  tx: Tx,
  scope: DepositScope,
  id: string,
): Promise<{ deposit: StoredDeposit & { bankCode: string; slipReference: string }; wallet: DepositWallet }> {
  const deposit = await findDeposit(tx, scope, id, { forUpdate: true });
  if (!deposit) throw notFound();
  const { bankCode, slipReference } = deposit;
  if (deposit.status !== 'pending' || deposit.source !== 'bank_slip' || !bankCode || !slipReference) {
    throw new AppError('DEPOSIT_NOT_PENDING', `The deposit is ${deposit.status}, not pending`, { status: deposit.status });
  }
  const wallet = await findScopedWallet(tx, scope, deposit.walletId);
  if (!wallet) throw new Error(`deposit ${deposit.id} names wallet ${deposit.walletId}, which cannot be found`);
  return { deposit: { ...deposit, bankCode, slipReference }, wallet };
}

/** The slip completed with its claimed line: its fee quoted, its credit's command, its audit record. */
async function completeSlip(
  tx: Tx,
  slip: SlipVerification,
  found: { deposit: StoredDeposit & { bankCode: string }; wallet: DepositWallet; lineId: string },
): Promise<TakenStep<StoredDeposit>> {
  const { deposit, wallet } = found;
  const amount = new BigNumber(deposit.amount).toFixed();
  const charge = depositCharge(
    await quoteFee(tx, slip.scope.tenantId, 'deposit', deposit.currencyCode, amount),
    amount,
    deposit.currencyCode,
  );
  const command = depositPostingCommand({
    depositId: deposit.id,
    source: 'bank_slip',
    floatAccount: ACCOUNTS.bankFloat.nameFor(deposit.bankCode),
    wallet,
    amount,
    charge,
  });
  const completed = await recordSlipVerification(tx, deposit.id, {
    status: 'completed',
    fee: charge.fee,
    commission: charge.commission,
    feeScheduleId: charge.scheduleId,
    feeRuleId: charge.ruleId,
    commandId: command.commandId,
    verifiedBy: slip.actorId,
  });
  return {
    record: completed,
    command,
    alsoSent: [slipAudit(slip, 'deposit.verified', completed, { statementLineId: found.lineId, fee: charge.fee })],
  };
}
