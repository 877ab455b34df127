import type { RouteContract } from '../route-contract';
import { accountBalanceAtSchema, BALANCE_AT_SUMMARY, balanceAtQuerySchema } from './balances';
import {
  deadLetterActionSchema,
  deadLetterListQuerySchema,
  deadLetterListSchema,
  deadLetterSchema,
  deadLettersReplayedSchema,
  replayDeadLettersBodySchema,
} from './dead-letters';
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
    operationId: 'system.organizations.update',
    summary:
      "Change an organization's name or configuration; allowed currencies reach payments and the ledger (system accounts) through tenant.updated. Audited",
    surface: 'system',
    service: 'identity',
    body: updateOrganizationBodySchema,
    success: { status: 200, schema: organizationSchema },
    errors: ['INVALID_AMOUNT', 'TENANT_NOT_FOUND'],
  },
  getWallet: {
    method: 'get',
    path: '/v1/system/wallets/{walletId}',
    operationId: 'system.wallets.get',
    summary: "Any tenant's wallet, with its tenant, environment and its balance as the ledger holds it now",
    surface: 'system',
    service: 'payments',
    success: { status: 200, schema: walletSchema },
    errors: ['WALLET_NOT_FOUND'],
  },
  listLedgerTransactions: {
    method: 'get',
    path: '/v1/system/ledger/transactions',
    operationId: 'system.transactions.list',
    summary:
      'Journal entries of every tenant, newest first; filters tenantId, environment, kind, referenceType, referenceId, accountName, walletId, from, to. Filters no index serves test at most 10,000 entries a request: a page may come back short, even empty, with a nextCursor that goes on',
    surface: 'system',
    service: 'ledger',
    query: systemJournalQuerySchema,
    success: { status: 200, schema: journalPageSchema },
  },
  getLedgerTransaction: {
    method: 'get',
    path: '/v1/system/ledger/transactions/{journalEntryId}',
    operationId: 'system.transactions.get',
    summary: "Any tenant's journal entry with its lines",
    surface: 'system',
    service: 'ledger',
    success: { status: 200, schema: journalEntrySchema },
    errors: ['JOURNAL_ENTRY_NOT_FOUND'],
  },
  getLedgerAccountBalance: {
    method: 'get',
    path: '/v1/system/ledger/accounts/{accountId}/balance',
    operationId: 'system.ledgerAccounts.balanceAt',
    summary: `Any tenant's ledger account (a wallet's or a system account), its balance ${BALANCE_AT_SUMMARY}`,
    surface: 'system',
    service: 'ledger',
    query: balanceAtQuerySchema,
    success: { status: 200, schema: accountBalanceAtSchema },
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  listDeadLetters: {
    method: 'get',
    path: '/v1/system/dead-letters',
    operationId: 'system.deadLetters.list',
    summary:
      "Messages parked in the dead-letter queues (all of them, or `queue`), oldest first, with each queue's depth; reading them leaves them parked",
    surface: 'system',
    service: 'identity',
    query: deadLetterListQuerySchema,
    success: { status: 200, schema: deadLetterListSchema },
  },
  getDeadLetter: {
    method: 'get',
    path: '/v1/system/dead-letters/{id}',
    operationId: 'system.deadLetters.get',
    summary: 'One parked message: why and where from it was dead-lettered, its properties, headers and body; 404 DEAD_LETTER_NOT_FOUND',
    surface: 'system',
    service: 'identity',
    success: { status: 200, schema: deadLetterSchema },
    errors: ['DEAD_LETTER_NOT_FOUND'],
  },
  replayDeadLetter: {
    method: 'post',
    path: '/v1/system/dead-letters/{id}/replay',
    operationId: 'system.deadLetters.replay',
    summary:
      'Deliver a parked message to the queue it was dead-lettered from, as it was sent, then remove it; its consumer drops what it already applied. 404 DEAD_LETTER_NOT_FOUND once it is gone. Audited',
    surface: 'system',
    service: 'identity',
    success: { status: 200, schema: deadLetterActionSchema },
    errors: ['DEAD_LETTER_NOT_FOUND'],
  },
  replayDeadLetters: {
    method: 'post',
    path: '/v1/system/dead-letters/replay',
    operationId: 'system.deadLetters.replayAll',
    summary: 'Replay up to `limit` parked messages, of one `queue` or of all, oldest first. Each one audited',
    surface: 'system',
    service: 'identity',
    body: replayDeadLettersBodySchema,
    success: { status: 200, schema: deadLettersReplayedSchema },
  },
  discardDeadLetter: {
    method: 'post',
    path: '/v1/system/dead-letters/{id}/discard',
    operationId: 'system.deadLetters.discard',
    summary: 'Remove a parked message without delivering it; 404 DEAD_LETTER_NOT_FOUND once it is gone. Audited',
    surface: 'system',
    service: 'identity',
    success: { status: 200, schema: deadLetterActionSchema },
    errors: ['DEAD_LETTER_NOT_FOUND'],
  },
} as const satisfies Record<string, RouteContract>;

export const PLATFORM_ROUTES: RouteContract[] = Object.values(platformRoutes);
