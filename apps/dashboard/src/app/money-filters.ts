import {
  depositQuerySchema,
  floatDepositQuerySchema,
  payoutCaseQuerySchema,
  transferQuerySchema,
  withdrawalQuerySchema,
} from '@wallet/contracts';
import { z } from 'zod';

/*
 * The money screens' list filters, kept in the URL and checked by each list's own query schema
 * (its page fields excepted: paging is the table's).
 */
const RANGE_AND_ORDER = { createdFrom: true, createdTo: true, sort: true } as const;
export const depositFiltersSchema = depositQuerySchema.pick({ walletId: true, status: true, source: true, ...RANGE_AND_ORDER });
export const transferFiltersSchema = transferQuerySchema.pick({ walletId: true, status: true, ...RANGE_AND_ORDER });
export const payoutFiltersSchema = payoutCaseQuerySchema.pick({ walletId: true, status: true, ...RANGE_AND_ORDER });
export const floatDepositFiltersSchema = floatDepositQuerySchema.pick({ status: true, currencyCode: true, ...RANGE_AND_ORDER });
export const withdrawalFiltersSchema = withdrawalQuerySchema.pick({ status: true, ...RANGE_AND_ORDER });

/** The treasury screen lists two things: each list's filters under its own names in the one URL. */
export const treasuryFiltersSchema = z.object({
  floatStatus: floatDepositFiltersSchema.shape.status,
  floatCurrencyCode: floatDepositFiltersSchema.shape.currencyCode,
  floatCreatedFrom: floatDepositFiltersSchema.shape.createdFrom,
  floatCreatedTo: floatDepositFiltersSchema.shape.createdTo,
  floatSort: floatDepositFiltersSchema.shape.sort,
  withdrawalStatus: withdrawalFiltersSchema.shape.status,
  withdrawalCreatedFrom: withdrawalFiltersSchema.shape.createdFrom,
  withdrawalCreatedTo: withdrawalFiltersSchema.shape.createdTo,
  withdrawalSort: withdrawalFiltersSchema.shape.sort,
});

/** The approvals inbox's views: the cases awaiting the signed-in checker, those awaiting someone else, or all. */
export const AWAITING_VIEWS = [
  { value: 'me', label: 'Awaiting me' },
  { value: 'others', label: 'Awaiting others' },
  { value: 'all', label: 'All pending' },
] as const;
export type Awaiting = (typeof AWAITING_VIEWS)[number]['value'];
const awaitingSchema = z.enum(AWAITING_VIEWS.map((view) => view.value) as [Awaiting, ...Awaiting[]]);
export const approvalsSearchSchema = z.object({ awaiting: awaitingSchema.optional().catch(undefined) });
