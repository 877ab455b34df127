import BigNumber from 'bignumber.js';
import { ACCOUNTS, type LedgerPostV1, type PostingLine } from '@wallet/contracts';
import { type ChargedMoneyRecord, postCommandOf } from '@wallet/money-commands';
import { walletAccountName } from '../ledger/ledger-commands';
import { TRANSFER, type TransferWallet } from './transfers-store';

/** One command per transfer, derived from its id: every copy of it is the same command to the ledger. */
export function transferCommandId(transferId: string): string {
  return `${transferId}:post`;
}

export interface TransferPosting extends ChargedMoneyRecord {
  correlationId?: string | undefined;
}

/**
 * The `transfer` entry of docs/decisions/money-movements.md: DR sender amount; DR sender fee; CR receiver
 * amount; CR revenue:fees fee; and, when there is a commission, DR revenue:fees commission and
 * CR platform-commission commission. Zero lines are left out (the ledger refuses zero amounts).
 */
export function transferPostCommand(transfer: TransferPosting, from: TransferWallet, to: TransferWallet): LedgerPostV1 {
  const currencyCode = transfer.currencyCode;
  const walletLine = (wallet: TransferWallet, direction: 'DR' | 'CR', amount: string): PostingLine => ({
    accountName: walletAccountName(wallet),
    walletId: wallet.id,
    direction,
    amount,
    currencyCode,
  });
  const systemLine = (accountName: string, direction: 'DR' | 'CR', amount: string): PostingLine => ({
    accountName,
    direction,
    amount,
    currencyCode,
  });
  const hasFee = new BigNumber(transfer.fee).gt(0);
  const hasCommission = new BigNumber(transfer.commission).gt(0);
  if (hasCommission && new BigNumber(transfer.commission).gt(transfer.fee))
    throw new Error(`commission ${transfer.commission} exceeds fee ${transfer.fee}`);
  const lines: PostingLine[] = [
    walletLine(from, 'DR', transfer.amount),
    ...(hasFee ? [walletLine(from, 'DR', transfer.fee)] : []),
    walletLine(to, 'CR', transfer.amount),
    ...(hasFee ? [systemLine(ACCOUNTS.feeRevenue.name, 'CR', transfer.fee)] : []),
    ...(hasCommission
      ? [
          systemLine(ACCOUNTS.feeRevenue.name, 'DR', transfer.commission),
          systemLine(ACCOUNTS.platformCommission.name, 'CR', transfer.commission),
        ]
      : []),
  ];
  return postCommandOf(transfer, {
    commandId: transferCommandId(transfer.id),
    kind: TRANSFER.kind,
    reference: { type: TRANSFER.type, id: transfer.id },
    lines,
  });
}
