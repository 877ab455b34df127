import { z } from 'zod';
import { pageQuerySchema, pageSchema, timestampSchema } from '../common';
import type { RouteContract } from '../route-contract';
import { reconciliationResultSchema } from './ledger';

/**
 * The checks of api-decisions section 9, in order: account balances against their lines,
 * balanced entries and totals, business records against their entries, bank evidence.
 */
export const RECONCILIATION_CHECK_NAMES = ['balances', 'entries_balance', 'business_records', 'bank_evidence'] as const;
export type ReconciliationCheckName = (typeof RECONCILIATION_CHECK_NAMES)[number];

/** A scheduled run that could not ask the ledger is `error`: it never passes for `ok`. */
export const reconciliationRunStatusSchema = z.enum(['ok', 'mismatch', 'error']);
export type ReconciliationRunStatus = z.infer<typeof reconciliationRunStatusSchema>;

const mismatchCount = z.number().int().min(0);
export const reconciliationMismatchCountsSchema = z.object({
  balances: mismatchCount,
  entries_balance: mismatchCount,
  business_records: mismatchCount,
  bank_evidence: mismatchCount,
} satisfies Record<ReconciliationCheckName, typeof mismatchCount>);
export type ReconciliationMismatchCounts = z.infer<typeof reconciliationMismatchCountsSchema>;

/**
 * One scheduled all-tenant run as listed: `roundAt` is the start of the schedule's round it ran
 * for (one run per round, however many payments instances there are); `mismatches` and `error`
 * are null for an `error` run and an ok or mismatch run respectively.
 */
export const reconciliationRunSummarySchema = z.object({
  id: z.string(),
  roundAt: timestampSchema,
  startedAt: timestampSchema,
  finishedAt: timestampSchema,
  status: reconciliationRunStatusSchema,
  mismatches: reconciliationMismatchCountsSchema.nullable(),
  error: z.string().nullable(),
});
export type ReconciliationRunSummary = z.infer<typeof reconciliationRunSummarySchema>;

/** A run with the full result it recorded (each check's list bounded as in a run asked for now). */
export const reconciliationRunSchema = reconciliationRunSummarySchema.extend({ result: reconciliationResultSchema.nullable() });
export type ReconciliationRun = z.infer<typeof reconciliationRunSchema>;

export const reconciliationRunPageSchema = pageSchema(reconciliationRunSummarySchema);

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
  listRuns: {
    method: 'get',
    path: '/v1/system/reconciliation/runs',
    summary: 'Scheduled all-tenant reconciliation runs (every PAYMENTS_RECONCILIATION_INTERVAL_MS), newest first: status ok, mismatch or error, and the mismatch count per check',
    surface: 'system',
    service: 'payments',
    query: pageQuerySchema,
    success: { status: 200, schema: reconciliationRunPageSchema },
  },
  getRun: {
    method: 'get',
    path: '/v1/system/reconciliation/runs/{id}',
    summary: 'One scheduled reconciliation run with the full result it recorded, or the error that stopped it; 404 RECONCILIATION_RUN_NOT_FOUND',
    surface: 'system',
    service: 'payments',
    success: { status: 200, schema: reconciliationRunSchema },
  },
} as const satisfies Record<string, RouteContract>;

export const RECONCILIATION_ROUTES: RouteContract[] = Object.values(reconciliationRoutes);
