import BigNumber from 'bignumber.js';
import { type ExpectedPosting, formatAmount, type JournalEntry, type PostingLine } from '@wallet/contracts';

/** A line as reports show it: `DR wallet:alice 100.00 USD`. */
function lineText(line: { direction: string; accountName: string; amount: string; currencyCode: string; walletId?: string | null | undefined }): string {
  const wallet = line.walletId ? ` (${line.walletId})` : '';
  return `${line.direction} ${line.accountName}${wallet} ${formatAmount(line.amount, line.currencyCode)} ${line.currencyCode}`;
}

/** Amounts compared as decimals, so `100`, `100.0` and `100.00` are one amount. */
function lineKey(line: { direction: string; accountName: string; amount: string; currencyCode: string; walletId?: string | null | undefined }): string {
  return JSON.stringify([line.direction, line.accountName, line.walletId ?? null, line.currencyCode, new BigNumber(line.amount).toFixed()]);
}

/** What is expected but absent, and what is present but not expected, each as many times as it differs. */
function lineDifferences(expected: readonly PostingLine[], actual: JournalEntry['lines']): { missing: string[]; unexpected: string[] } {
  const remaining = new Map<string, Array<(typeof actual)[number]>>();
  for (const line of actual) remaining.set(lineKey(line), [...(remaining.get(lineKey(line)) ?? []), line]);
  const missing: string[] = [];
  for (const line of expected) {
    const matches = remaining.get(lineKey(line));
    if (matches && matches.length > 0) matches.pop();
    else missing.push(lineText(line));
  }
  const unexpected = [...remaining.values()].flat().map(lineText);
  return { missing, unexpected };
}

/**
 * How an entry differs from the posting its record meant, as mismatch fields; null when it is
 * exactly that posting, in the record's own tenant and environment.
 */
export function entryDifferences(posting: ExpectedPosting, entry: JournalEntry, record: { tenantId: string; environment: string }): Record<string, unknown> | null {
  const problems: string[] = [];
  const details: Record<string, unknown> = {};
  if (entry.tenantId !== record.tenantId || entry.environment !== record.environment) {
    problems.push('journal_entry_in_other_scope');
    details.entryTenantId = entry.tenantId;
    details.entryEnvironment = entry.environment;
  }
  if (entry.reference.type !== posting.reference.type || entry.reference.id !== posting.reference.id) {
    problems.push('reference_differs');
    details.entryReference = entry.reference;
  }
  if (entry.kind !== posting.kind) {
    problems.push('kind_differs');
    details.expectedKind = posting.kind;
    details.entryKind = entry.kind;
  }
  const { missing, unexpected } = lineDifferences(posting.lines, entry.lines);
  if (missing.length > 0 || unexpected.length > 0) {
    problems.push('lines_differ');
    details.missingLines = missing;
    details.unexpectedLines = unexpected;
    details.expectedLines = posting.lines.map(lineText);
    details.entryLines = entry.lines.map(lineText);
  }
  return problems.length === 0 ? null : { differences: problems, ...details };
}
