import BigNumber from 'bignumber.js';
import { ACCOUNTS, type DepositSource, formatAmount, type LedgerPostV1, type PostingLine, roundToCurrency } from '@wallet/contracts';
import { currentContext } from '@wallet/kit';
import { postCommandOf } from '@wallet/money-commands';
import type { FeeQuoteResult } from '../fees/quote-fee';
import { walletAccountName } from '../ledger/ledger-commands';
import { DEPOSIT, type DepositWallet } from './deposits-store';

/** The fee a deposit is charged: the schedule's, capped at the amount (a deposit never debits the wallet). */
export interface DepositCharge {
  fee: string;
  commission: string;
  scheduleId: string | null;
  ruleId: string | null;
}

/**
 * A fee larger than the amount is capped at the amount: the wallet is credited nothing, the
 * whole amount is fee revenue, and the commission is recomputed on the capped fee.
 */
export function depositCharge(quote: FeeQuoteResult, amount: string, currencyCode: string): DepositCharge {
  const value = new BigNumber(amount);
  if (new BigNumber(quote.fee).lte(value))
    return { fee: quote.fee, commission: quote.commission, scheduleId: quote.scheduleId, ruleId: quote.ruleId };
  const commission = roundToCurrency(value.times(quote.platformCommissionBps).div(10_000), currencyCode);
  return {
    fee: formatAmount(value, currencyCode),
    commission: formatAmount(BigNumber.min(commission, value), currencyCode),
    scheduleId: quote.scheduleId,
    ruleId: quote.ruleId,
  };
}

/** The command id of a deposit's posting: one per deposit, so a re-sent copy is the same command. */
export function depositCommandId(depositId: string): string {
  return `${depositId}:post`;
}

/**
 * The deposit's kind by its source (docs/decisions/money-movements.md): DR the float `amount`; CR the wallet
 * amount - fee; CR revenue:fees fee; DR revenue:fees / CR platform-commission the commission.
 * Zero lines are left out.
 */
export function depositPostingCommand(input: {
  depositId: string;
  source: DepositSource;
  floatAccount: string;
  wallet: DepositWallet;
  amount: string;
  charge: DepositCharge;
}): LedgerPostV1 {
  const { wallet, charge } = input;
  const currencyCode = wallet.currencyCode;
  const amount = new BigNumber(input.amount);
  const fee = new BigNumber(charge.fee);
  const commission = new BigNumber(charge.commission);
  const credited = amount.minus(fee);
  const line = (accountName: string, direction: 'DR' | 'CR', value: BigNumber): PostingLine => ({
    accountName,
    direction,
    amount: formatAmount(value, currencyCode),
    currencyCode,
  });
  const lines: PostingLine[] = [line(input.floatAccount, 'DR', amount)];
  if (credited.gt(0)) lines.push({ ...line(walletAccountName(wallet), 'CR', credited), walletId: wallet.id });
  if (fee.gt(0)) lines.push(line(ACCOUNTS.feeRevenue.name, 'CR', fee));
  if (commission.gt(0))
    lines.push(line(ACCOUNTS.feeRevenue.name, 'DR', commission), line(ACCOUNTS.platformCommission.name, 'CR', commission));
  const correlationId = currentContext()?.correlationId;
  const scope = {
    tenantId: wallet.tenantId,
    environment: wallet.environment,
    correlationId: correlationId && /^[\s\S]{1,128}$/.test(correlationId) ? correlationId : undefined,
  };
  return postCommandOf(scope, {
    commandId: depositCommandId(input.depositId),
    kind: DEPOSIT.kind[input.source],
    reference: { type: DEPOSIT.type, id: input.depositId },
    lines,
  });
}
