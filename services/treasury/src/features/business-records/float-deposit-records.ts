import type { LocalRecordSource } from '@wallet/kit';
import { floatDepositPostCommand } from '../float-deposits/float-deposit-posting';
import { floatDepositsByIds } from '../float-deposits/float-deposits-store';

/** Float deposits for reconciliation: a completed one has exactly the entry its posting builder makes; a pending one may still complete. */
export const floatDepositRecords: LocalRecordSource = {
  referenceType: 'float_deposit',
  table: 'float_deposits',
  async byIds(db, ids) {
    return (await floatDepositsByIds(db, null, ids)).map((deposit) => {
      const command = floatDepositPostCommand(deposit);
      return {
        id: deposit.id,
        seq: deposit.seq,
        tenantId: deposit.tenantId,
        environment: deposit.environment,
        status: deposit.status,
        createdAt: deposit.createdAt,
        finished: deposit.status === 'completed',
        open: deposit.status === 'pending',
        journalEntryIds: deposit.journalEntryId ? [deposit.journalEntryId] : [],
        postings: deposit.status === 'completed' ? [{ journalEntryId: deposit.journalEntryId, kind: command.kind, reference: command.reference, lines: command.lines }] : [],
      };
    });
  },
};
