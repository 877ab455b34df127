import { ACCOUNTS, type ExpectedPosting } from '@wallet/contracts';
import { singleEntrySource } from '@wallet/money-commands';
import { depositPostingCommand } from '../deposits/deposit-posting';
import { depositsAfter, depositsByIds, type ReconciledDeposit } from '../deposits/deposit-records';

/*
 * Deposits for reconciliation's check 3, read through deposits' own records module. Every other
 * movement's source is in its own feature folder, listed with it in src/movements.ts; deposits'
 * moves there as deposits are reworked (docs/money-movements.md).
 */

function depositPosting(deposit: ReconciledDeposit): Omit<ExpectedPosting, 'journalEntryId'> {
  const isMomo = deposit.source === 'momo';
  const command = depositPostingCommand({
    depositId: deposit.id,
    kind: isMomo ? 'momo_deposit' : 'bank_deposit',
    floatAccount: isMomo ? ACCOUNTS.momoFloat.nameFor(deposit.providerCode ?? '') : ACCOUNTS.bankFloat.nameFor(deposit.bankCode ?? ''),
    wallet: deposit.wallet,
    amount: deposit.amount,
    charge: { fee: deposit.fee, commission: deposit.commission, scheduleId: null, ruleId: null },
  });
  return { kind: command.kind, reference: command.reference, lines: command.lines };
}

export const depositSource = singleEntrySource({
  referenceType: 'deposit',
  table: 'deposits',
  rowsByIds: (db, ids) => depositsByIds(db, null, ids),
  rowsAfter: depositsAfter,
  posting: depositPosting,
});
