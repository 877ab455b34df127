import { type Direction, type JournalEntry, journalQuerySchema, ledgerAccountQuerySchema } from '@wallet/contracts';
import BigNumber from 'bignumber.js';
import { z } from 'zod';

/**
 * The journal's filters in the URL, checked by the API's own query schema: every filter the
 * tenant's `GET /v1/journal` takes (the business record an entry names is the operator's filter only).
 */
export const journalFiltersSchema = journalQuerySchema.pick({ kind: true, accountName: true, walletId: true, from: true, to: true });
export type JournalFilters = z.infer<typeof journalFiltersSchema>;

/** The ledger account list's filters in the URL. */
export const accountFiltersSchema = ledgerAccountQuerySchema.pick({ name: true, currencyCode: true, walletId: true });
export type AccountFilters = z.infer<typeof accountFiltersSchema>;

/** An account page narrows to one wallet's account (a wallet account's name is its owner's, shared by the owner's currencies). */
export const accountPageSearchSchema = z.object({ walletId: journalQuerySchema.shape.walletId });

export type JournalLine = JournalEntry['lines'][number];

export interface CurrencyTotals {
  currencyCode: string;
  debits: string;
  credits: string;
  balanced: boolean;
}

/** An entry's debits and credits per currency, summed exactly: an entry balances in each currency it moves. */
export function entryTotals(lines: readonly JournalLine[]): CurrencyTotals[] {
  const sums = new Map<string, { DR: BigNumber; CR: BigNumber }>();
  for (const line of lines) {
    const sum = sums.get(line.currencyCode) ?? { DR: new BigNumber(0), CR: new BigNumber(0) };
    sum[line.direction] = sum[line.direction].plus(line.amount);
    sums.set(line.currencyCode, sum);
  }
  return [...sums].map(([currencyCode, sum]) => ({
    currencyCode,
    debits: sum.DR.toFixed(),
    credits: sum.CR.toFixed(),
    balanced: sum.DR.isEqualTo(sum.CR),
  }));
}

/** One line of an account as its page lists it: the line with the entry it belongs to. */
export interface AccountLine {
  entryId: string;
  lineIndex: number;
  kind: JournalEntry['kind'];
  createdAt: string;
  direction: Direction;
  amount: string;
  currencyCode: string;
  walletId: string | null;
}

/** The lines an account has in these entries (an entry may move it more than once), in the entries' order. */
export function linesOfAccount(entries: readonly JournalEntry[], accountName: string, walletId?: string): AccountLine[] {
  return entries.flatMap((entry) =>
    entry.lines.flatMap((line, lineIndex) =>
      line.accountName === accountName && (walletId === undefined || line.walletId === walletId)
        ? [
            {
              entryId: entry.id,
              lineIndex,
              kind: entry.kind,
              createdAt: entry.createdAt,
              direction: line.direction,
              amount: line.amount,
              currencyCode: line.currencyCode,
              walletId: line.walletId,
            },
          ]
        : [],
    ),
  );
}

const LOCAL_INPUT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

/** A `datetime-local` input's value (the viewer's wall clock) as the API's timestamp; undefined when empty, the text itself when no date (the schema then says why). */
export function localInputToIso(value: string): string | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  if (!LOCAL_INPUT.test(text)) return text;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The API's timestamp as a `datetime-local` input's value in the viewer's time zone (to the minute, or the second when it has one). */
export function isoToLocalInput(iso: string | undefined): string {
  if (iso === undefined) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const minutes = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return date.getSeconds() === 0 && date.getMilliseconds() === 0 ? minutes : `${minutes}:${pad(date.getSeconds())}`;
}
