import { floatDepositPostCommand } from './float-deposit-posting';
import { FLOAT_DEPOSIT, floatDepositsByIds } from './float-deposits-store';
import { singleEntrySource } from '@wallet/money-commands';

export { FLOAT_DEPOSIT } from './float-deposits-store';

/** Float deposits for reconciliation: one entry once completed, as transfers and deposits. */
export const floatDepositRecords = singleEntrySource({
  referenceType: FLOAT_DEPOSIT.type,
  table: FLOAT_DEPOSIT.table,
  rowsByIds: (db, ids) => floatDepositsByIds(db, null, ids),
  posting: (deposit) => {
    const command = floatDepositPostCommand(deposit);
    return { kind: command.kind, reference: command.reference, lines: command.lines };
  },
});
