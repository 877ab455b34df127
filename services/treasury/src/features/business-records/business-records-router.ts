import { type BusinessRecordsCheck, businessRecordsCheckBodySchema } from '@wallet/contracts';
import { type BackgroundPace, type Db, parseOrThrow, requireSystem } from '@wallet/kit';
import { Router } from 'express';
import { z } from 'zod';
import {
  checkAllRecords,
  checkOwnRecords,
  type JournalForRecords,
  type LocalRecordSource,
  MismatchList,
  scopesWithRecords,
} from '@wallet/money-commands';

export interface BusinessRecordsOptions {
  db: Db;
  journal: JournalForRecords;
  sources: readonly LocalRecordSource[];
  /** An open record (pending, or a case not yet decided) is re-read this long after it was created. */
  lookbackMs: number;
  /** How a full run gives way to treasury's traffic. */
  pace: BackgroundPace;
}

/**
 * Check 3 over treasury's own records (float deposits, withdrawal cases), for payments'
 * reconciliation: internal only, system token, never routed by the gateway. Only the mismatches
 * and what was covered go back; treasury's records never cross HTTP.
 */
export function businessRecordsRouter(options: BusinessRecordsOptions): Router {
  const router = Router();

  router.post('/internal/v1/business-records/check', async (request, response) => {
    requireSystem(response);
    const body = parseOrThrow(businessRecordsCheckBodySchema, request.body ?? {});
    const scope =
      body.tenantId !== undefined && body.environment !== undefined ? { tenantId: body.tenantId, environment: body.environment } : null;
    const scopes = scope
      ? [scope]
      : await scopesWithRecords(
          options.db,
          options.sources.map((source) => source.table),
        );
    const mismatches = new MismatchList(body.limit);
    const ledgerDigests = body.ledgerDigests;
    const coverage =
      body.mode === 'incremental'
        ? await checkOwnRecords(options, scopes, mismatches)
        : await checkAllRecords(
            options,
            scopes,
            { scope, passDigests: ledgerDigests ? () => Promise.resolve(ledgerDigests) : null, pace: options.pace },
            mismatches,
          );
    const answer: BusinessRecordsCheck = { mismatches: mismatches.items, coverage };
    response.json(answer);
  });

  return router;
}

export const reconciliationConfigShape = {
  /** Check 3 keeps re-reading an open float deposit or withdrawal case for this long after it was created. */
  TREASURY_RECONCILIATION_LOOKBACK_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 366)
    .default(72),
  /** Check 3's calls to the ledger (entries by id, entries naming a record); a full run's are longer. */
  TREASURY_RECONCILIATION_LEDGER_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
};
