import type { RouteContract } from '../route-contract';
import { accountBalanceAtSchema, BALANCE_AT_SUMMARY, balanceAtQuerySchema } from './balances';
import { organizationSchema, updateOrganizationBodySchema } from './identity';
import { journalEntrySchema, journalPageSchema, systemJournalQuerySchema } from './ledger';
import { walletSchema } from './wallets';

/**
 * The platform operator's cross-tenant view (X-System-Key), each route with its precise schema
 * types for typed clients; PLATFORM_ROUTES is the same routes as a list for the gateway and the
 * OpenAPI document.
 */
export const platformRoutes = {
  updateOrganization: {
    method: 'patch',
    path: '/v1/system/organizations/{id}',
    summary: "Change an organization's name or configuration; allowed currencies reach payments and the ledger (system accounts) through tenant.updated. Audited",
    surface: 'system',
    service: 'identity',
    body: updateOrganizationBodySchema,
    success: { status: 200, schema: organizationSchema },
  },
  getWallet: {
    method: 'get',
    path: '/v1/system/wallets/{walletId}',
    summary: "Any tenant's wallet, with its tenant, environment and its balance as the ledger holds it now",
    surface: 'system',
    service: 'payments',
    success: { status: 200, schema: walletSchema },
  },
  listLedgerTransactions: {
    method: 'get',
    path: '/v1/system/ledger/transactions',
    summary: 'Journal entries of every tenant, newest first; filters tenantId, environment, kind, referenceType, referenceId, accountName, walletId, from, to',
    surface: 'system',
    service: 'ledger',
    query: systemJournalQuerySchema,
    success: { status: 200, schema: journalPageSchema },
  },
  getLedgerTransaction: {
    method: 'get',
    path: '/v1/system/ledger/transactions/{journalEntryId}',
    summary: "Any tenant's journal entry with its lines",
    surface: 'system',
    service: 'ledger',
    success: { status: 200, schema: journalEntrySchema },
  },
  getLedgerAccountBalance: {
    method: 'get',
    path: '/v1/system/ledger/accounts/{accountId}/balance',
    summary: `Any tenant's ledger account (a wallet's or a system account), its balance ${BALANCE_AT_SUMMARY}`,
    surface: 'system',
    service: 'ledger',
    query: balanceAtQuerySchema,
    success: { status: 200, schema: accountBalanceAtSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const PLATFORM_ROUTES: RouteContract[] = Object.values(platformRoutes);
