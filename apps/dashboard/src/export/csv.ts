import type { z } from 'zod';
import type { statementLineSchema } from '@wallet/contracts';

export type StatementLine = z.infer<typeof statementLineSchema>;

/** One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvRows(rows: readonly (readonly string[])[]): string {
  return rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

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
