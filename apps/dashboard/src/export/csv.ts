import type { z } from 'zod';
import type { statementLineSchema } from '@wallet/contracts';
import { csvRows } from '@wallet/contracts/csv';

export type StatementLine = z.infer<typeof statementLineSchema>;

export const STATEMENT_CSV_HEADER = ['createdAt', 'journalEntryId', 'kind', 'direction', 'amount', 'balanceAfter', 'currencyCode'] as const;

/**
 * A wallet's statement as CSV, newest first as the API lists it. Amounts and balances are the
 * API's decimal strings untouched (no separators, no rounding), so a spreadsheet or a script
 * reads the exact figures.
 */
export function statementCsv(lines: readonly StatementLine[], currencyCode: string): string {
  return csvRows([
    STATEMENT_CSV_HEADER,
    ...lines.map((line) => [line.createdAt, line.journalEntryId, line.kind, line.direction, line.amount, line.balanceAfter, currencyCode]),
  ]);
}
