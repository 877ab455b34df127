import {
  BackgroundPace,
  type Features,
  idempotencyRetentionRule,
  inboxRetentionRule,
  queueAndDeadLetters,
  runMain,
  type RunningService,
  type ServiceConfig,
  type ServiceParts,
  startService,
} from '@wallet/kit';
import {
  coalesceLedgerCommands,
  LedgerReads,
  MemberDirectory,
  moneyFeaturesConfigShape,
  movementSources,
  startMoneyFeatures,
  startPostings,
} from '@wallet/money-commands';
import { migrations } from '../migrations';
import { startAnalytics } from './features/analytics/analytics-feature';
import { analyticsEntriesRetentionRule, analyticsRetentionConfigShape } from './features/analytics/analytics-retention';
import { startBalances } from './features/balances/balances-feature';
import { businessRecordsRouter, reconciliationConfigShape } from './features/business-records/business-records-router';
import { startTenantReadModel, tenantsConfigShape } from './features/tenants/tenants-feature';
import { TREASURY_MONEY_FEATURES, TREASURY_MOVEMENTS } from './movements';
import { peersConfigShape } from './peers';
import { declareTreasuryTopology, TREASURY_TOPOLOGY } from './topology';

export type { RunningService };

/** The variables treasury reads besides the common ones: its peers' and each feature's (the money features' from its list). */
const treasuryConfigShape = {
  ...peersConfigShape,
  ...moneyFeaturesConfigShape(TREASURY_MONEY_FEATURES),
  ...reconciliationConfigShape,
  ...tenantsConfigShape,
  ...analyticsRetentionConfigShape,
};

/** Treasury's features on the shared parts: its money features (src/movements.ts), balances, analytics and its records for check 3. */
async function wireTreasury({ db, relay, ...parts }: ServiceParts<ServiceConfig<typeof treasuryConfigShape>>): Promise<Features> {
  const { config, logger } = parts;
  const tenants = await startTenantReadModel({ db, relay, ...parts });
  // Who a float deposit's depositor and a withdrawal's maker and checker are: identity answers, uncached.
  const members = new MemberDirectory({
    identityUrl: config.IDENTITY_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.TREASURY_IDENTITY_TIMEOUT_MS,
    logger,
  });
  // Postings: the money features hand them their movements' finishers as they start; the ledger events consumer starts last.
  const postings = await startPostings({ db, relay, ...parts }, { service: 'treasury', eventsQueue: TREASURY_TOPOLOGY.ledgerEvents.queue });
  const balances = startBalances({ db, relay, ...parts });
  const money = startMoneyFeatures(TREASURY_MONEY_FEATURES, { db, relay, ...parts }, { postings, tenants, members });
  const analytics = await startAnalytics({ db, relay, ...parts });
  // Check 3 of treasury's own records asks the ledger for their entries by id.
  const journal = new LedgerReads({
    baseUrl: config.LEDGER_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.TREASURY_RECONCILIATION_LEDGER_TIMEOUT_MS,
    logger,
  });
  await postings.start();
  return {
    routes: (app) => {
      balances.routes(app);
      money.routes(app);
      // Reconciliation (in payments) reads treasury's records through these.
      app.use(
        businessRecordsRouter({
          db,
          journal,
          sources: movementSources(TREASURY_MOVEMENTS),
          lookbackMs: config.TREASURY_RECONCILIATION_LOOKBACK_HOURS * 3_600_000,
          pace: BackgroundPace.fromConfig(config),
        }),
      );
      analytics.routes(app);
    },
    bodyOptIns: money.bodyOptIns,
    stop: async () => {
      await money.stop?.();
      await postings.stop();
      await analytics.stop?.();
    },
  };
}

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  return startService(
    {
      name: 'treasury',
      port: { variable: 'TREASURY_PORT', defaultPort: 8094 },
      config: treasuryConfigShape,
      migrations,
      topology: declareTreasuryTopology,
      queues: [TREASURY_TOPOLOGY.ledgerEvents, TREASURY_TOPOLOGY.identityEvents, TREASURY_TOPOLOGY.analytics].flatMap((names) =>
        queueAndDeadLetters(names.queue, names.deadLetterQueue),
      ),
      idempotencyKeys: true,
      // Its ledger commands travel several to a message.
      prepareOutgoingBatch: coalesceLedgerCommands,
      retention: (config) => [
        idempotencyRetentionRule(),
        inboxRetentionRule(config.INBOX_RETENTION_DAYS),
        analyticsEntriesRetentionRule(config.TREASURY_ANALYTICS_ENTRY_RETENTION_DAYS),
      ],
      wire: wireTreasury,
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
