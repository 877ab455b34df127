import { fieldLabel } from '../format/words';
import type { ReconciliationFullRun, ReconciliationRunState } from '@wallet/contracts';

export type Mismatch = Record<string, unknown>;

/**
 * The fields the checks write amounts into, at the currency of the row's `currencyCode`
 * (ledger checks 1 and 2, and bank evidence): shown as money, never as bare text.
 */
const AMOUNT_FIELDS: ReadonlySet<string> = new Set(['materializedBalance', 'sumOfLines', 'debits', 'credits', 'amount']);
const ENTRY_FIELDS: ReadonlySet<string> = new Set(['journalEntryId', 'entryId', 'reversesEntryId']);
const SIGNED_DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;

export type MismatchCell =
  | { type: 'money'; amount: string; currencyCode: string }
  | { type: 'entry'; id: string }
  | { type: 'wallet'; id: string }
  | { type: 'deposit'; id: string }
  | { type: 'statementLine'; id: string }
  | { type: 'text'; text: string };

/**
 * What a reader looks for first in a mismatch: what is wrong, and the money and the reference it
 * is about. They lead the table, so they stay on the screen however many fields follow.
 */
const LEADING_FIELDS = ['problem', 'amount', 'materializedBalance', 'sumOfLines', 'debits', 'credits', 'reference'];

/**
 * The columns of a check's mismatch table: every field any row has, the leading ones first, the
 * others in the order they first appear.
 */
export function mismatchFields(rows: readonly Mismatch[]): string[] {
  const fields = new Set<string>();
  for (const row of rows) for (const field of Object.keys(row)) fields.add(field);
  const rank = (field: string) => (LEADING_FIELDS.includes(field) ? LEADING_FIELDS.indexOf(field) : LEADING_FIELDS.length);
  return [...fields].sort((a, b) => rank(a) - rank(b));
}

/** How one field of a mismatch shows: an amount as money, an entry or wallet as a link, anything else as text. */
export function mismatchCell(row: Mismatch, field: string): MismatchCell {
  const value = row[field];
  const currencyCode = row.currencyCode;
  if (AMOUNT_FIELDS.has(field) && typeof value === 'string' && SIGNED_DECIMAL.test(value) && typeof currencyCode === 'string')
    return { type: 'money', amount: value, currencyCode };
  if (ENTRY_FIELDS.has(field) && typeof value === 'string' && value !== '') return { type: 'entry', id: value };
  if (field === 'walletId' && typeof value === 'string' && value !== '') return { type: 'wallet', id: value };
  if (field === 'depositId' && typeof value === 'string' && value !== '') return { type: 'deposit', id: value };
  // An unmatched line is resolved on the workbench, where it opens chosen.
  if (field === 'statementLineId' && typeof value === 'string' && value !== '') return { type: 'statementLine', id: value };
  if (value === null || value === undefined) return { type: 'text', text: '—' };
  // A check names its problems in snake_case: `unmatched_statement_line` reads "Unmatched statement line".
  if (field === 'problem' && typeof value === 'string') return { type: 'text', text: fieldLabel(value) };
  return { type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) };
}

export function isRunFinished(state: ReconciliationRunState): boolean {
  return state === 'succeeded' || state === 'failed';
}

export interface RunProgress {
  /** What the run is doing, in words. */
  label: string;
  /** 0-100 when the run knows how far it is, else null (the bar is then indeterminate). */
  percent: number | null;
}

/**
 * How far a full run is: the ledger's lines checked against the journal's size while it checks
 * entries (held below 100 until the run says it is done: the estimate is only an estimate), then
 * accounts compared and business records checked, which have no known total.
 */
export function runProgress(run: Pick<ReconciliationFullRun, 'state' | 'progress'>): RunProgress {
  if (run.state === 'queued') return { label: 'Waiting to start', percent: 0 };
  if (isRunFinished(run.state)) return { label: run.state === 'succeeded' ? 'Finished' : 'Stopped', percent: 100 };
  const ledger = run.progress.ledger;
  const records = `${run.progress.records} business records checked`;
  if (ledger === null) return { label: `Starting; ${records}`, percent: null };
  if (ledger.phase === 'entries') {
    const label = `Checking entries: ${ledger.entries} entries, ${ledger.lines} lines; ${records}`;
    const estimate = ledger.linesEstimate;
    return { label, percent: estimate !== null && estimate > 0 ? Math.min(99, Math.floor((ledger.lines * 100) / estimate)) : null };
  }
  if (ledger.phase === 'accounts')
    return { label: `Comparing accounts with their lines: ${ledger.accounts} accounts; ${records}`, percent: null };
  return { label: `Ledger checked (${ledger.entries} entries, ${ledger.accounts} accounts); ${records}`, percent: null };
}

/** The checks by what they assure, not by their API names (`entries_balance`). */
export const CHECK_TITLES: Readonly<Record<string, string>> = {
  balances: 'Balances equal their journal lines',
  entries_balance: 'Every entry balances',
  business_records: 'Records match their journal entries',
  bank_evidence: 'Bank statements and slips agree',
};

export function checkTitle(name: string): string {
  return CHECK_TITLES[name] ?? fieldLabel(name);
}
