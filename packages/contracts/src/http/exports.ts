import { z } from 'zod';
import type { RouteContract } from '../route-contract';
import { depositSchema, depositRoutes } from './deposits';
import { payoutCaseSchema, payoutRoutes } from './payouts';
import { transferSchema, transferRoutes } from './transfers';
import { floatDepositSchema, treasuryRoutes, withdrawalRoutes, withdrawalSchema } from './treasury';
import { walletRoutes, walletSchema } from './wallets';

/** A list route an export walks: a tenant route answering pages of `{data, nextCursor}`. */
type ListRoute = RouteContract & { surface: 'tenant'; scope: string; query: z.ZodObject };

/** What the gateway needs to export a list: the list it walks as the caller, and the columns of its records. */
export interface CsvExport {
  list: ListRoute;
  /** The record's fields in the API's order: the CSV's header and each row's cells. */
  columns: readonly string[];
}

/** The query of an export: the list's filters, without its paging. */
function exportQuery(list: ListRoute): z.ZodObject {
  return list.query.omit({ cursor: true, limit: true });
}

/**
 * `GET /v1/exports/{name}`: every record the list's filters select, as CSV (RFC 4180, UTF-8,
 * CRLF), streamed by the gateway as it walks the list's pages with the caller's credential, so
 * an export of any length holds one page in memory. Amounts are the API's decimal strings; times
 * are UTC ISO 8601 with their `Z`; a nested object (a payout's destination) is its JSON.
 */
function exportRoute(name: string, list: ListRoute, record: z.ZodObject, operation = name) {
  const route = {
    method: 'get',
    path: `/v1/exports/${name}`,
    operationId: `exports.${operation}`,
    summary: `Export ${name} as CSV: every record the list's filters select, streamed (${list.method.toUpperCase()} ${list.path} with no paging)`,
    surface: 'tenant',
    scope: list.scope,
    service: 'gateway',
    query: exportQuery(list),
    answers: 'text/csv',
    success: { status: 200, schema: z.string() },
  } as const satisfies RouteContract;
  return { route, csv: { list, columns: Object.keys(record.shape) } satisfies CsvExport };
}

const exports = {
  transfers: exportRoute('transfers', transferRoutes.list, transferSchema),
  deposits: exportRoute('deposits', depositRoutes.list, depositSchema),
  payouts: exportRoute('payouts', payoutRoutes.list, payoutCaseSchema),
  withdrawals: exportRoute('withdrawals', withdrawalRoutes.list, withdrawalSchema),
  floatDeposits: exportRoute('float-deposits', treasuryRoutes.listFloatDeposits, floatDepositSchema, 'floatDeposits'),
  wallets: exportRoute('wallets', walletRoutes.list, walletSchema),
};

export const exportRoutes = {
  transfers: exports.transfers.route,
  deposits: exports.deposits.route,
  payouts: exports.payouts.route,
  withdrawals: exports.withdrawals.route,
  floatDeposits: exports.floatDeposits.route,
  wallets: exports.wallets.route,
};
export const EXPORT_ROUTES: RouteContract[] = Object.values(exportRoutes);

/** Each export's list and columns, by its path. */
export const CSV_EXPORTS: ReadonlyMap<string, CsvExport> = new Map(Object.values(exports).map((each) => [each.route.path, each.csv]));
