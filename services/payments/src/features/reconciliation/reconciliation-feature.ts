import type { Features, ServiceConfig, ServiceParts } from '@wallet/kit';
import { z } from 'zod';
import { LedgerJournal } from '../ledger/ledger-journal';
import type { walletsConfigShape } from '../wallets/wallets-feature';
import { depositSource, transferSource } from './business-record-sources';
import { reconciliationRouter } from './reconciliation-router';
import { ReconciliationService } from './reconciliation-service';

export const reconciliationConfigShape = {
  /** A bank slip still pending after this many hours shows up in the bank evidence check. */
  PAYMENTS_RECONCILIATION_SLIP_MAX_AGE_HOURS: z.coerce.number().min(0).max(24 * 366).default(72),
  /** The ledger's checks read every account and line in scope: they get longer than a balance read. */
  PAYMENTS_RECONCILIATION_LEDGER_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
};

type ReconciliationConfig = ServiceConfig<typeof reconciliationConfigShape & Pick<typeof walletsConfigShape, 'LEDGER_URL'>>;

/** Reconciliation: the ledger's checks plus payments' own, over deposits and transfers. */
export function startReconciliation(parts: ServiceParts<ReconciliationConfig>): Features {
  const { config, db, logger } = parts;
  const ledger = new LedgerJournal({ baseUrl: config.LEDGER_URL, internalTokenSecret: config.INTERNAL_TOKEN_SECRET, timeoutMs: config.PAYMENTS_RECONCILIATION_LEDGER_TIMEOUT_MS, logger });
  const reconciliation = new ReconciliationService({ db, ledger, sources: [transferSource(db), depositSource(db)], slipMaxAgeHours: config.PAYMENTS_RECONCILIATION_SLIP_MAX_AGE_HOURS });
  return { routes: (app) => app.use(reconciliationRouter(reconciliation)) };
}
