import { z } from 'zod';
import { DATE_DOMAIN_MESSAGE, isWithinDateDomain, timestampSchema } from '../common';
import { amountStringSchema, signedAmountStringSchema } from '../money';

/** How `at` is read, said once for the OpenAPI document and the schema's own message. */
export const BALANCE_AT_DESCRIPTION =
  'The moment, ISO 8601 date and time with its offset (Z or ±hh:mm; a local time without one is ambiguous and refused). ' +
  'Inclusive: an entry stamped exactly at `at` counts. Entries are stamped to the millisecond, so digits beyond milliseconds are cut off without changing the answer. ' +
  'A moment before the first line answers balance 0 and journalEntryId null; a moment in the future answers the balance now. ' +
  'Postings are stamped as the ledger takes their batch, before it commits, so the answer for a moment less than a second old may still change while postings in flight commit.';

const FRACTION_BEYOND_MILLISECONDS = /(\.\d{3})\d+/;

/**
 * `at`, normalized to UTC with milliseconds (the answer's `at`). Cutting extra digits is a floor
 * in time whatever the offset, and every entry's stamp is a whole millisecond, so "at or
 * before" is unchanged. A moment outside the API's date domain is refused.
 */
export const balanceMomentSchema = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time with Z or an offset' })
  .transform((text, context) => {
    const moment = new Date(text.replace(FRACTION_BEYOND_MILLISECONDS, '$1'));
    if (Number.isNaN(moment.getTime()) || !isWithinDateDomain(moment.getTime())) {
      context.addIssue({ code: 'custom', message: DATE_DOMAIN_MESSAGE });
      return z.NEVER;
    }
    return moment.toISOString();
  })
  .describe(BALANCE_AT_DESCRIPTION);

/** `?at=`: required, so a balance "as of" never silently means "now". */
export const balanceAtQuerySchema = z.object({ at: balanceMomentSchema });
export type BalanceAtQuery = z.infer<typeof balanceAtQuerySchema>;

const balanceAtFields = {
  currencyCode: z.string(),
  /** The moment asked about, in UTC with milliseconds. */
  at: timestampSchema,
  /** The last entry on the account at or before `at`, whose line's balance-after is `balance`; null before the first. */
  journalEntryId: z.string().nullable(),
};

export const walletBalanceAtSchema = z.object({ walletId: z.string(), balance: amountStringSchema, ...balanceAtFields });
export type WalletBalanceAt = z.infer<typeof walletBalanceAtSchema>;

/** In the account's normal direction, as a ledger account's balance always is. */
export const accountBalanceAtSchema = z.object({ accountId: z.string(), balance: signedAmountStringSchema, ...balanceAtFields });
export type AccountBalanceAt = z.infer<typeof accountBalanceAtSchema>;

/** The decision in brief, for the route summaries; the `at` parameter's description has it in full. */
export const BALANCE_AT_SUMMARY =
  "as of a moment: the balance after its last journal line stamped at or before `at` (inclusive; Z or an offset required; milliseconds; before the first line 0 with journalEntryId null; a future moment answers the balance now). Found by bisecting the account's lines on an index (a few dozen seeks), never by summing its history";
