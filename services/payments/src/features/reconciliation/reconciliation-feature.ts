import { BackgroundPace, type Features, type ServiceConfig, type ServiceParts } from '@wallet/kit';
import { LedgerReads, type LocalRecordSource } from '@wallet/money-commands';
import { z } from 'zod';
import type { peersConfigShape } from '../../peers';
import { ReconciliationFullRuns } from './reconciliation-full-runs';
import { reconciliationRouter } from './reconciliation-router';
import { ReconciliationSchedule } from './reconciliation-schedule';
import { ReconciliationService } from './reconciliation-service';
import { TreasuryRecords } from './treasury-records';

export const reconciliationConfigShape = {
  /** A bank slip still pending after this many hours shows up in the bank evidence check. */
  PAYMENTS_RECONCILIATION_SLIP_MAX_AGE_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 366)
    .default(72),
  /** Reads for the checks (the ledger reads every account and line in scope; treasury its records): longer than a balance read. */
  PAYMENTS_RECONCILIATION_LEDGER_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** Check 3 keeps re-reading an open record (a pending deposit or transfer, a payout case not yet done) for this long after it was created. */
  PAYMENTS_RECONCILIATION_LOOKBACK_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 366)
    .default(72),
  /** A background full run's calls (treasury checking all its records from zero). */
  PAYMENTS_RECONCILIATION_FULL_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(24 * 3_600_000)
    .default(3_600_000),
  /** Round length of the scheduled all-tenant run; 0 turns it off. Below 100 ms it would only load the ledger. */
  PAYMENTS_RECONCILIATION_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3_600_000)
    .refine((value) => value === 0 || value >= 100, '0 (off) or at least 100')
    .default(15 * 60_000),
};

type ReconciliationConfig = ServiceConfig<typeof reconciliationConfigShape & Pick<typeof peersConfigShape, 'LEDGER_URL' | 'TREASURY_URL'>>;

/**
 * Reconciliation: the ledger's checks plus payments' own, over its records (`sources`, its
 * movements') and treasury's, asked for or on a schedule.
 */
export function startReconciliation(parts: ServiceParts<ReconciliationConfig>, deps: { sources: readonly LocalRecordSource[] }): Features {
  const { config, db, logger, metrics } = parts;
  const ledger = new LedgerReads({
    baseUrl: config.LEDGER_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.PAYMENTS_RECONCILIATION_LEDGER_TIMEOUT_MS,
    logger,
  });
  const treasury = new TreasuryRecords({
    baseUrl: config.TREASURY_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.PAYMENTS_RECONCILIATION_LEDGER_TIMEOUT_MS,
    logger,
  });
  const compared = metrics.counter(
    'reconciliation_full_record_scopes_total',
    "Full runs' check 3 per scope and record type: compared as one digest, or one by one (something differed or was in flight)",
    ['reference_type', 'compared'],
  );
  const reconciliation = new ReconciliationService({
    db,
    ledger,
    journal: ledger,
    sources: deps.sources,
    treasury,
    slipMaxAgeHours: config.PAYMENTS_RECONCILIATION_SLIP_MAX_AGE_HOURS,
    lookbackMs: config.PAYMENTS_RECONCILIATION_LOOKBACK_HOURS * 3_600_000,
    onFullCompared: (referenceType, how) => compared.inc({ reference_type: referenceType, compared: how }),
    pace: BackgroundPace.fromConfig(config),
  });
  const schedule = new ReconciliationSchedule({
    db,
    logger,
    metrics,
    intervalMs: config.PAYMENTS_RECONCILIATION_INTERVAL_MS,
    run: () => reconciliation.run(null),
  });
  schedule.start();
  const fullRuns = new ReconciliationFullRuns({
    db,
    logger,
    ledger,
    reconciliation,
    treasuryTimeoutMs: config.PAYMENTS_RECONCILIATION_FULL_TIMEOUT_MS,
  });
  return {
    routes: (app) => app.use(reconciliationRouter(reconciliation, fullRuns, db)),
    stop: async () => {
      await schedule.stop();
      await fullRuns.stop();
    },
  };
}
