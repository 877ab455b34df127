import type { RouteContract } from '../route-contract';
import { reconciliationResultSchema } from './ledger';

/**
 * The checks of api-decisions section 9, in order: account balances against their lines,
 * balanced entries and totals, business records against their entries, bank evidence.
 */
export const RECONCILIATION_CHECK_NAMES = ['balances', 'entries_balance', 'business_records', 'bank_evidence'] as const;
export type ReconciliationCheckName = (typeof RECONCILIATION_CHECK_NAMES)[number];

export const reconciliationRoutes = {
  tenant: {
    method: 'get',
    path: '/v1/admin/reconciliation',
    summary:
      "Run all four reconciliation checks now for the caller's tenant and environment: balances (materialized balance = sum of lines), entries_balance (every entry and the totals per currency balance), business_records (every completed deposit and transfer has exactly its journal entry, and every entry naming one points at it), bank_evidence (unmatched statement lines, bank slips pending too long). 503 SERVICE_UNAVAILABLE when the ledger cannot be asked",
    surface: 'tenant',
    service: 'payments',
    scope: 'analytics:read',
    success: { status: 200, schema: reconciliationResultSchema },
  },
  system: {
    method: 'get',
    path: '/v1/system/reconciliation',
    summary: 'Run all four reconciliation checks now across every tenant and environment; 503 SERVICE_UNAVAILABLE when the ledger cannot be asked',
    surface: 'system',
    service: 'payments',
    success: { status: 200, schema: reconciliationResultSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const RECONCILIATION_ROUTES: RouteContract[] = Object.values(reconciliationRoutes);
