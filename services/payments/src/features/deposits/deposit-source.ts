import { ACCOUNTS, type ExpectedPosting } from '@wallet/contracts';
import { singleEntrySource } from '@wallet/money-commands';
import { depositPostingCommand } from './deposit-posting';
import { DEPOSIT, depositsAfter, depositsByIds, type ReconciledDeposit } from './deposit-records';

/* Deposits for reconciliation's check 3, both ways in: each with the entry its source posts. */

function depositPosting(deposit: ReconciledDeposit): Omit<ExpectedPosting, 'journalEntryId'> {
  const isMomo = deposit.source === 'momo';
  const command = depositPostingCommand({
    depositId: deposit.id,
    source: deposit.source,
    floatAccount: isMomo ? ACCOUNTS.momoFloat.nameFor(deposit.providerCode ?? '') : ACCOUNTS.bankFloat.nameFor(deposit.bankCode ?? ''),
    wallet: deposit.wallet,
    amount: deposit.amount,
    charge: { fee: deposit.fee, commission: deposit.commission, scheduleId: null, ruleId: null },
  });
  return { kind: command.kind, reference: command.reference, lines: command.lines };
}

export const depositSource = singleEntrySource({
  referenceType: DEPOSIT.type,
  table: DEPOSIT.table,
  rowsByIds: (db, ids) => depositsByIds(db, null, ids),
  rowsAfter: depositsAfter,
  posting: depositPosting,
});
