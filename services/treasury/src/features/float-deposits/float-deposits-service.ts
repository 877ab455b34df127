import { type CreateFloatDepositBody, type FloatDeposit, type FloatDepositQuery, formatAmount, newId, type Page } from '@wallet/contracts';
import { AppError, currentContext, pageInOrder, type TenantDirectory } from '@wallet/kit';
import {
  type CommandAnswers,
  type CommandResult,
  ledgerRefusal,
  type MemberDirectory,
  MoneyCommand,
  type MoneyCommandDeps,
  requirePermittedMember,
  settledMoneyCommand,
} from '@wallet/money-commands';
import { floatDepositPostCommand } from './float-deposit-posting';
import {
  FLOAT_DEPOSIT,
  FLOAT_DEPOSIT_POSTING,
  FLOAT_DEPOSIT_RECORDS,
  findFloatDeposit,
  listFloatDeposits,
  type NewFloatDeposit,
  type StoredFloatDeposit,
  type TreasuryScope,
} from './float-deposits-store';

export interface FloatDepositsDeps extends MoneyCommandDeps {
  tenants: Pick<TenantDirectory, 'require'>;
  members: Pick<MemberDirectory, 'memberOf'>;
}

const DEPOSITOR_SCOPE = 'treasury:write';

/**
 * Tenant float deposits. The record, its posting command (through the outbox) and the
 * idempotency key's pending answer commit in one statement; the ledger's answer finishes the
 * record exactly once, from the reply this request waits for or from the ledger's event.
 */
export class FloatDepositsService extends MoneyCommand<NewFloatDeposit, StoredFloatDeposit, FloatDeposit> {
  constructor(private readonly directories: Pick<FloatDepositsDeps, 'tenants' | 'members'> & MoneyCommandDeps) {
    super(directories, FLOAT_DEPOSIT_COMMAND);
  }

  async create(scope: TreasuryScope, body: CreateFloatDepositBody, answers: CommandAnswers): Promise<CommandResult<FloatDeposit>> {
    this.checkAmount(body);
    await this.checkLimit(scope.tenantId, body.amount);
    // The depositor answers for the money as a withdrawal's maker does: an active member allowed to move treasury funds.
    if (body.depositedBy !== undefined)
      await requirePermittedMember(this.directories.members, scope.tenantId, body.depositedBy, DEPOSITOR_SCOPE);
    const amount = formatAmount(body.amount, body.currencyCode);
    const id = newId('floatDeposit');
    const draft: NewFloatDeposit = {
      id,
      currencyCode: body.currencyCode,
      amount,
      rail: body.rail,
      externalReference: body.externalReference ?? null,
      depositedBy: body.depositedBy ?? null,
      note: body.note ?? null,
      createdAt: new Date(),
    };
    const command = floatDepositPostCommand({
      ...scope,
      id,
      currencyCode: body.currencyCode,
      amount,
      rail: body.rail,
      correlationId: currentContext()?.correlationId,
    });
    return this.run({ scope, draft, command, answers });
  }

  list(scope: TreasuryScope, query: FloatDepositQuery): Promise<Page<FloatDeposit>> {
    return pageInOrder(query, (after) => listFloatDeposits(this.deps.db, scope, { ...query, after }), toFloatDeposit);
  }
}

/** Float deposits as money commands: the deposit is pending until the ledger posts or refuses its posting. */
export const FLOAT_DEPOSIT_COMMAND = settledMoneyCommand<NewFloatDeposit, StoredFloatDeposit, FloatDeposit>({
  recordType: FLOAT_DEPOSIT.type,
  approval: 'none',
  amount: { limit: 'tenant' },
  records: FLOAT_DEPOSIT_RECORDS,
  keyWrite: 'held',
  step: FLOAT_DEPOSIT_POSTING,
  refusalOf,
  find: findFloatDeposit,
  show: toFloatDeposit,
  // A refusal is the request's own answer (422 with the deposit failed): no rail or person acts later.
  announces: { posted: 'float_deposit.completed' },
  notFound: () => new AppError('FLOAT_DEPOSIT_NOT_FOUND', 'No such float deposit'),
});

/** The ledger's refusal as the error the client gets; the deposit, recorded as failed, is named in details. */
export function refusalOf(deposit: StoredFloatDeposit): AppError {
  return ledgerRefusal(deposit.failureCode, {}, (reported) => `The ledger refused the float deposit (${reported})`, {
    floatDepositId: deposit.id,
  });
}

export function toFloatDeposit(deposit: StoredFloatDeposit): FloatDeposit {
  return {
    id: deposit.id,
    amount: formatAmount(deposit.amount, deposit.currencyCode),
    currencyCode: deposit.currencyCode,
    rail: deposit.rail,
    externalReference: deposit.externalReference,
    depositedBy: deposit.depositedBy,
    note: deposit.note,
    status: deposit.status,
    journalEntryId: deposit.journalEntryId,
    failureCode: deposit.failureCode,
    createdAt: deposit.createdAt.toISOString(),
  };
}
