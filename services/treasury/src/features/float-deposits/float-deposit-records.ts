import { floatDepositPostCommand } from './float-deposit-posting';
import { floatDepositsByIds } from './float-deposits-store';
import { singleEntrySource } from '@wallet/money-commands';

/** Float deposits for reconciliation: one entry once completed, as transfers and deposits. */
export const floatDepositRecords = singleEntrySource({
  referenceType: 'float_deposit',
  table: 'float_deposits',
  rowsByIds: (db, ids) => floatDepositsByIds(db, null, ids),
  posting: (deposit) => {
    const command = floatDepositPostCommand(deposit);
    return { kind: command.kind, reference: command.reference, lines: command.lines };
  },
});
