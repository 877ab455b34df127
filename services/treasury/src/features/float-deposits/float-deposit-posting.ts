import { ACCOUNTS, type FloatRail, type LedgerPostV1, RAIL_CLEARING } from '@wallet/contracts';
import { type MoneyRecord, postCommandOf } from '@wallet/money-commands';
import { FLOAT_DEPOSIT } from './float-deposits-store';

/** One command per float deposit, derived from its id: every copy of it is the same command to the ledger. */
export function floatDepositCommandId(floatDepositId: string): string {
  return `${floatDepositId}:post`;
}

export interface FloatDepositPosting extends MoneyRecord {
  rail: FloatRail;
  correlationId?: string | undefined;
}

/** docs/decisions/money-movements.md: DR `asset:pool:<cur>` amount; CR `asset:<rail>-clearing:<cur>` amount. */
export function floatDepositPostCommand(deposit: FloatDepositPosting): LedgerPostV1 {
  const currencyCode = deposit.currencyCode;
  return postCommandOf(deposit, {
    commandId: floatDepositCommandId(deposit.id),
    kind: FLOAT_DEPOSIT.kind,
    reference: { type: FLOAT_DEPOSIT.type, id: deposit.id },
    lines: [
      { accountName: ACCOUNTS.pool.nameFor(currencyCode), direction: 'DR', amount: deposit.amount, currencyCode },
      { accountName: RAIL_CLEARING[deposit.rail].nameFor(currencyCode), direction: 'CR', amount: deposit.amount, currencyCode },
    ],
  });
}
