import type { BusinessRecordSource } from '@wallet/contracts';
import type { Db } from '@wallet/kit';
import { floatDepositPostCommand } from '../float-deposits/float-deposit-posting';
import { completedFloatDepositsPage, floatDepositsByIds, type StoredFloatDeposit } from '../float-deposits/float-deposits-store';

function nextCursor(rows: StoredFloatDeposit[], limit: number): string | null {
  return rows.length === limit ? (rows[rows.length - 1]?.seq ?? null) : null;
}

/** Float deposits for reconciliation: a completed one has exactly the entry its posting builder makes. */
export function floatDepositRecords(db: Db): BusinessRecordSource {
  return {
    referenceType: 'float_deposit',
    async finishedPage(scope, page) {
      if (page.cursor !== null && !/^\d{1,19}$/.test(page.cursor)) throw new Error(`float deposit cursor ${page.cursor} is not a position`);
      const rows = await completedFloatDepositsPage(db, scope, { beforeSeq: page.cursor, limit: page.limit });
      return {
        records: rows.map((deposit) => {
          const command = floatDepositPostCommand(deposit);
          return {
            id: deposit.id,
            tenantId: deposit.tenantId,
            environment: deposit.environment,
            postings: [{ journalEntryId: deposit.journalEntryId, kind: command.kind, reference: command.reference, lines: command.lines }],
          };
        }),
        cursor: nextCursor(rows, page.limit),
      };
    },
    async byIds(scope, ids) {
      return (await floatDepositsByIds(db, scope, ids)).map((deposit) => ({
        id: deposit.id,
        tenantId: deposit.tenantId,
        environment: deposit.environment,
        status: deposit.status,
        finished: deposit.status === 'completed',
        journalEntryIds: deposit.journalEntryId ? [deposit.journalEntryId] : [],
      }));
    },
  };
}
