import { statementQuerySchema, walletQuerySchema } from '@wallet/contracts';

/** The wallet list's filters live in the URL (shareable, back button), checked by the API's own query schema. */
export const walletFiltersSchema = walletQuerySchema.pick({
  ownerType: true,
  ownerId: true,
  currencyCode: true,
  status: true,
  createdFrom: true,
  createdTo: true,
  sort: true,
});

/**
 * The keys of a filtered list's form and table, both new when the filters change: the form shows
 * the filters applied, the table pages again from the first. They differ from each other: React
 * keeps a stale copy of one of two siblings that share a key, so each change piled up a form.
 */
export function listKeys(filters: object): { form: string; list: string; filtered: boolean } {
  const key = JSON.stringify(filters);
  return { form: `form:${key}`, list: `list:${key}`, filtered: key !== '{}' };
}

/** A wallet's statement period, in the wallet page's address. */
export const statementPeriodSchema = statementQuerySchema.pick({ createdFrom: true, createdTo: true });
