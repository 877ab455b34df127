import {
  fullRunsRetentionConfigShape,
  fullRunsRetentionRule,
  idempotency,
  idempotencyRetentionRule,
  inboxRetentionRule,
  queueAndDeadLetters,
  runMain,
  type RunningService,
  startService,
} from '@wallet/kit';
import {
  coalesceLedgerCommands,
  MemberDirectory,
  moneyFeaturesConfigShape,
  movementSources,
  startMoneyFeatures,
  startPostings,
} from '@wallet/money-commands';
import { migrations } from '../migrations';
import { feesRouter } from './features/fees/fees-router';
import { FeesService } from './features/fees/fees-service';
import { reconciliationConfigShape, startReconciliation } from './features/reconciliation/reconciliation-feature';
import {
  reconciliationRunsRetentionConfigShape,
  reconciliationRunsRetentionRule,
} from './features/reconciliation/reconciliation-runs-retention';
import { startTenantReadModel, tenantsConfigShape } from './features/tenants/tenants-feature';
import { startWallets, walletsConfigShape } from './features/wallets/wallets-feature';
import { PAYMENTS_MONEY_FEATURES, PAYMENTS_MOVEMENTS } from './movements';
import { peersConfigShape } from './peers';
import { declarePaymentsTopology, PAYMENTS_TOPOLOGY } from './topology';

export type { RunningService };

/** The variables payments reads besides the common ones: its peers' and each feature's (the money features' from its list). */
const paymentsConfigShape = {
  ...peersConfigShape,
  ...tenantsConfigShape,
  ...walletsConfigShape,
  ...moneyFeaturesConfigShape(PAYMENTS_MONEY_FEATURES),
  ...reconciliationConfigShape,
  ...reconciliationRunsRetentionConfigShape,
  ...fullRunsRetentionConfigShape,
};

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  return startService(
    {
      name: 'payments',
      port: { variable: 'PAYMENTS_PORT', defaultPort: 8093 },
      config: paymentsConfigShape,
      migrations,
      topology: declarePaymentsTopology,
      queues: [PAYMENTS_TOPOLOGY.ledgerEvents, PAYMENTS_TOPOLOGY.identityEvents].flatMap((names) =>
        queueAndDeadLetters(names.queue, names.deadLetterQueue),
      ),
      idempotencyKeys: true,
      // Its ledger commands travel several to a message.
      prepareOutgoingBatch: coalesceLedgerCommands,
      retention: (config) => [
        idempotencyRetentionRule(),
        inboxRetentionRule(config.INBOX_RETENTION_DAYS),
        reconciliationRunsRetentionRule(config.PAYMENTS_RECONCILIATION_RUN_RETENTION_DAYS),
        fullRunsRetentionRule(config.RECONCILIATION_FULL_RUN_RETENTION_DAYS),
      ],
      // The money features are started from payments' list (src/movements.ts); the other features here.
      wire: async ({ db, relay, ...parts }) => {
        const { config, logger } = parts;
        const tenants = await startTenantReadModel({ db, relay, ...parts });
        const wallets = await startWallets({ db, relay, ...parts }, { tenants });
        const fees = new FeesService({ db, relay });
        // Who verifies a slip and who requests and decides a payout: identity answers, uncached.
        const members = new MemberDirectory({
          identityUrl: config.IDENTITY_URL,
          internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
          timeoutMs: config.PAYMENTS_IDENTITY_TIMEOUT_MS,
          logger,
        });
        // Postings: the money features hand them their movements' finishers as they start; the ledger events consumer starts last.
        const postings = await startPostings(
          { db, relay, ...parts },
          { service: 'payments', eventsQueue: PAYMENTS_TOPOLOGY.ledgerEvents.queue },
        );
        const money = startMoneyFeatures(PAYMENTS_MONEY_FEATURES, { db, relay, ...parts }, { postings, tenants, members });
        const reconciliation = startReconciliation({ db, relay, ...parts }, { sources: movementSources(PAYMENTS_MOVEMENTS) });
        await postings.start();
        return {
          routes: (app) => {
            // The money features first, in list order: transfers, at its head, are most of the traffic.
            money.routes(app);
            app.use(feesRouter(fees, tenants, idempotency({ db, required: false, logger })));
            wallets.routes(app);
            reconciliation.routes(app);
          },
          bodyOptIns: money.bodyOptIns,
          stop: async () => {
            await reconciliation.stop?.();
            // Before the postings: the features' work (a payout's delivery) awaits the ledger through them.
            await money.stop?.();
            await postings.stop();
            await wallets.stop?.();
          },
        };
      },
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
