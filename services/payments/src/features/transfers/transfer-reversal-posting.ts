import type { LedgerPostV1, PostingLine } from '@wallet/contracts';
import { postCommandOf } from '@wallet/money-commands';
import { transferPostCommand } from './transfer-posting';
import { TRANSFER_REVERSAL } from './transfer-reversals-store';
import type { TransferWallet } from './transfers-store';

/** What a reversal posts: its share of the transfer, and the fee and commission it hands back (0 without refundFee). */
export interface ReversalPosting {
  tenantId: string;
  environment: LedgerPostV1['environment'];
  id: string;
  currencyCode: string;
  amount: string;
  feeRefunded: string;
  commissionRefunded: string;
  correlationId?: string | undefined;
}

/** The transfer a reversal undoes: its entry and its two wallets. */
export interface ReversedTransfer {
  journalEntryId: string;
  from: TransferWallet;
  to: TransferWallet;
}

const OPPOSITE = { DR: 'CR', CR: 'DR' } as const;

/**
 * The `transfer_reversal` entry of docs/decisions/money-movements.md: the lines of a transfer of
 * the reversed amount (with the refunded fee and commission), each on the other side. So DR
 * receiver amount, CR sender amount; with the fee, CR sender fee, DR revenue:fees fee, CR
 * revenue:fees commission, DR platform-commission commission. It names the transfer's entry.
 */
export function reversalPostCommand(reversal: ReversalPosting, transfer: ReversedTransfer): LedgerPostV1 {
  const forward = transferPostCommand(
    { ...reversal, fee: reversal.feeRefunded, commission: reversal.commissionRefunded },
    transfer.from,
    transfer.to,
  );
  const lines = forward.lines.map((line): PostingLine => ({ ...line, direction: OPPOSITE[line.direction] }));
  const reference = { type: TRANSFER_REVERSAL.type, id: reversal.id };
  return {
    ...postCommandOf(reversal, { commandId: `${reversal.id}:post`, kind: TRANSFER_REVERSAL.kind, reference, lines }),
    reversesEntryId: transfer.journalEntryId,
  };
}
