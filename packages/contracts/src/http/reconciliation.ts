import { z } from 'zod';
import { environmentSchema, pageQuerySchema, pageSchema, timestampSchema } from '../common';
import type { RouteContract } from '../route-contract';
import { ledgerFullRunProgressSchema, reconciliationResultSchema, reconciliationRunStateSchema } from './ledger';

/**
 * The checks of docs/decisions/reconciliation.md, in order: account balances against their lines,
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

/**
 * A full re-verification from zero, run in the background: every account summed from its first
 * line, every entry and every business record checked, as the checks asked now do from their
 * checkpoints. `state`: queued, running, succeeded (the checks ran; `status` says what they found)
 * or failed (`error` says why). `progress`: the ledger's entries and lines checked, then accounts
 * compared (`linesEstimate`: the journal's size, when known), and the business records checked. A full run that finds nothing leaves the checkpoints confirmed; one
 * that finds something leaves them at the true sums, so the checks asked now report it too.
 */
export const reconciliationFullRunSchema = z.object({
  id: z.string(),
  kind: z.literal('full'),
  tenantId: z.string().nullable(),
  environment: environmentSchema.nullable(),
  state: reconciliationRunStateSchema,
  createdAt: timestampSchema,
  startedAt: timestampSchema.nullable(),
  finishedAt: timestampSchema.nullable(),
  progress: z.object({ ledger: ledgerFullRunProgressSchema.nullable(), records: z.number().int().min(0) }),
  status: z.enum(['ok', 'mismatch']).nullable(),
  result: reconciliationResultSchema.nullable(),
  error: z.string().nullable(),
});
export type ReconciliationFullRun = z.infer<typeof reconciliationFullRunSchema>;

const FULL_RUN_SUMMARY =
  'Start a full re-verification from zero in the background (202 with the run to follow at GET .../runs/{id}): checks 1 and 2 over every account and entry, paced so that postings keep their latency, check 3 over every business record, check 4. While a run for the same scope is queued or running, the call answers that run instead of starting another. The checks asked now (GET) start from checkpoints instead: they read only what came after the last run, and find a corruption older than the checkpoints only once a full run has.';

export const reconciliationRoutes = {
  tenant: {
    method: 'get',
    path: '/v1/admin/reconciliation',
    operationId: 'reconciliation.run',
    summary:
      "Run all four reconciliation checks now for the caller's tenant and environment: balances (materialized balance = sum of lines), entries_balance (every entry and the totals per currency balance), business_records (every completed deposit and transfer has exactly its journal entry, and every entry naming one points at it), bank_evidence (unmatched statement lines, bank slips pending too long). Each check goes on from where the last run left off (checkpoints per account and per scope in the ledger, marks per record type in each service) and `coverage` says what this run read; older history is re-verified by a full run (POST /v1/admin/reconciliation/runs). 503 SERVICE_UNAVAILABLE when the ledger cannot be asked",
    surface: 'tenant',
    service: 'payments',
    scope: 'analytics:read',
    success: { status: 200, schema: reconciliationResultSchema },
  },
  system: {
    method: 'get',
    path: '/v1/system/reconciliation',
    operationId: 'reconciliation.runAcrossTenants',
    summary:
      'Run all four reconciliation checks now across every tenant and environment, each from where the last run left off (`coverage` says what was read; older history is re-verified by POST /v1/system/reconciliation/runs); 503 SERVICE_UNAVAILABLE when the ledger cannot be asked',
    surface: 'system',
    service: 'payments',
    success: { status: 200, schema: reconciliationResultSchema },
  },
  listRuns: {
    method: 'get',
    path: '/v1/system/reconciliation/runs',
    operationId: 'reconciliation.runs.list',
    summary:
      'Scheduled all-tenant reconciliation runs (every PAYMENTS_RECONCILIATION_INTERVAL_MS), newest first: status ok, mismatch or error, and the mismatch count per check',
    surface: 'system',
    service: 'payments',
    query: pageQuerySchema,
    success: { status: 200, schema: reconciliationRunPageSchema },
  },
  getRun: {
    method: 'get',
    path: '/v1/system/reconciliation/runs/{id}',
    operationId: 'reconciliation.runs.get',
    summary:
      'One reconciliation run: a scheduled one with the full result it recorded or the error that stopped it, or a full run (kind full) with its state, progress and, once done, its result; 404 RECONCILIATION_RUN_NOT_FOUND',
    surface: 'system',
    service: 'payments',
    success: { status: 200, schema: z.union([reconciliationRunSchema, reconciliationFullRunSchema]) },
    errors: ['RECONCILIATION_RUN_NOT_FOUND'],
  },
  startRun: {
    method: 'post',
    path: '/v1/system/reconciliation/runs',
    operationId: 'reconciliation.fullRuns.startAcrossTenants',
    summary: `${FULL_RUN_SUMMARY} Across every tenant and environment.`,
    surface: 'system',
    service: 'payments',
    success: { status: 202, schema: reconciliationFullRunSchema },
  },
  startTenantRun: {
    method: 'post',
    path: '/v1/admin/reconciliation/runs',
    operationId: 'reconciliation.fullRuns.start',
    summary: `${FULL_RUN_SUMMARY} For the caller's tenant and environment; the tenant admin's scope, as it sets the database to work (following the run is analytics:read).`,
    surface: 'tenant',
    service: 'payments',
    scope: 'tenant:manage',
    success: { status: 202, schema: reconciliationFullRunSchema },
  },
  getTenantRun: {
    method: 'get',
    path: '/v1/admin/reconciliation/runs/{id}',
    operationId: 'reconciliation.fullRuns.get',
    summary: "One of the caller's tenant's full runs: state, progress and, once done, its result; 404 RECONCILIATION_RUN_NOT_FOUND",
    surface: 'tenant',
    service: 'payments',
    scope: 'analytics:read',
    success: { status: 200, schema: reconciliationFullRunSchema },
    errors: ['RECONCILIATION_RUN_NOT_FOUND'],
  },
} as const satisfies Record<string, RouteContract>;

export const RECONCILIATION_ROUTES: RouteContract[] = Object.values(reconciliationRoutes);
