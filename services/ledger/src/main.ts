import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { ledgerPartitionQueues, TOPOLOGY } from '@wallet/contracts';
import {
  BackgroundPace,
  type Db,
  DEFAULT_LIST_EXAMINE_MAX,
  fullRunsRetentionConfigShape,
  fullRunsRetentionRule,
  inboxRetentionRule,
  type Logger,
  queueAndDeadLetters,
  runMain,
  type RunningService,
  startService,
} from '@wallet/kit';
import { z } from 'zod';
import { migrations } from '../migrations';
import { balanceAtRouter } from './features/accounts/balance-router';
import { journalInternalRouter } from './features/journal/journal-internal-router';
import { ledgerReadRouter } from './features/journal/journal-router';
import { registerSealingGauge, startStampSealing } from './features/journal/journal-stamps';
import { PostingConsumer } from './features/posting/posting-consumer';
import { processedCommandsRetentionRule } from './features/posting/posting-retention';
import { assertPartitionsCover } from './features/partitions/partition-directory';
import { PartitionClaims } from './features/partitions/partition-epochs';
import { startUnplacedConsumer } from './features/partitions/unplaced-consumer';
import { startProvisioningConsumer } from './features/provisioning/provisioning-consumer';
import { FullRuns } from './features/reconciliation/full-runs';
import { JournalFollower } from './features/reconciliation/journal-follower';
import { ledgerReconciliationRouter } from './features/reconciliation/reconciliation-router';
import { declareLedgerTopology } from './topology';

export type { RunningService };

/** The variables the ledger reads besides the common ones. */
const ledgerConfigShape = {
  ...fullRunsRetentionConfigShape,
  LEDGER_BATCH_SIZE_MAX: z.coerce.number().int().min(1).max(2000).default(500),
  LEDGER_PIPELINE_DEPTH: z.coerce.number().int().min(1).max(8).default(2),
  LEDGER_DB_POOL_MAX: z.coerce.number().int().min(2).max(100).default(10),
  /**
   * The platform's ledger partitions: every tenant is placed on one, and each is applied by one
   * writer at a time (docs/scaling.md). Set once; it can be raised later, never lowered.
   */
  LEDGER_PARTITIONS: z.coerce.number().int().min(1).max(1024).default(32),
  /** A writer that stops answering the broker this long (about twice) loses its partitions to the others. */
  LEDGER_AMQP_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(600).default(5),
  /** A transaction left idle this long (a frozen writer's) is rolled back by the server, freeing its locks for the next writer. */
  LEDGER_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(10_000),
  /** How long a command's recorded result is kept (docs/retention.md: what a command older than this gets). */
  LEDGER_PROCESSED_COMMANDS_RETENTION_DAYS: z.coerce.number().int().min(7).max(3650).default(30),
  /** A full reconciliation run checks ten times this many entries, then accounts, per batch (a share of it while postings arrive: BACKGROUND_BUSY_SHARE). */
  LEDGER_RECONCILIATION_FULL_BATCH: z.coerce.number().int().min(1).max(100_000).default(5_000),
  /** A reconciliation asked now reads at most this many new entries of a scope: after a long pause it catches up over several runs, each in bounded time. */
  LEDGER_RECONCILIATION_INCREMENTAL_MAX_ENTRIES: z.coerce.number().int().min(1).max(10_000_000).default(500_000),
  /**
   * How often every scope's new entries are checked in the background, so that a reconciliation asked for reads only what
   * came since (journal-follower.ts); 0 turns it off.
   */
  LEDGER_RECONCILIATION_FOLLOW_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(2_000),
  /** A journal list tests at most this many entries against the filters no index serves; a page that stops short says where to go on. */
  LEDGER_JOURNAL_EXAMINE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_LIST_EXAMINE_MAX),
  /** How often the stamps of newly final entries are summarized for the journal's time filters (journal-stamps.ts). */
  LEDGER_JOURNAL_STAMP_SEAL_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
};

/** This process's claims on the partitions the broker delivers it, under a name that says which process it is. */
function partitionClaims(db: Db, logger: Logger): PartitionClaims {
  const writer = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  return new PartitionClaims(db, writer, (partition, epoch) => logger.info({ partition, epoch, writer }, 'ledger partition claimed'));
}

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  return startService(
    {
      name: 'ledger',
      port: { variable: 'LEDGER_PORT', defaultPort: 8092 },
      config: ledgerConfigShape,
      migrations,
      topology: (channel, config) => declareLedgerTopology(channel, config.LEDGER_PARTITIONS),
      // Identity's events dead-letter to the commands' queue too.
      queues: (config) => [
        ...ledgerPartitionQueues(config.LEDGER_PARTITIONS).map((name) => ({ name, deadLetter: false })),
        ...queueAndDeadLetters(TOPOLOGY.ledgerCommands.unplacedQueue, TOPOLOGY.ledgerCommands.deadLetterQueue),
        { name: TOPOLOGY.identityEvents.ledgerQueue, deadLetter: false },
      ],
      dbPoolMax: (config) => config.LEDGER_DB_POOL_MAX,
      dbIdleInTransactionTimeoutMs: (config) => config.LEDGER_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      amqpHeartbeatSeconds: (config) => config.LEDGER_AMQP_HEARTBEAT_SECONDS,
      retention: (config) => [
        processedCommandsRetentionRule(config.LEDGER_PROCESSED_COMMANDS_RETENTION_DAYS),
        inboxRetentionRule(config.INBOX_RETENTION_DAYS),
        fullRunsRetentionRule(config.RECONCILIATION_FULL_RUN_RETENTION_DAYS),
      ],
      wire: async ({ config, db, broker, logger, metrics, relay }) => {
        const partitions = config.LEDGER_PARTITIONS;
        await assertPartitionsCover(db, partitions);
        const consumer = new PostingConsumer({
          broker,
          db,
          logger,
          metrics,
          relay,
          partitions,
          claims: partitionClaims(db, logger),
          batchSizeMax: config.LEDGER_BATCH_SIZE_MAX,
          pipelineDepth: config.LEDGER_PIPELINE_DEPTH,
        });
        await consumer.start();
        await startUnplacedConsumer({ broker, db, logger, partitions });
        await startProvisioningConsumer({ broker, db, logger, partitions });
        const sealing = startStampSealing(db, logger, config.LEDGER_JOURNAL_STAMP_SEAL_INTERVAL_MS);
        registerSealingGauge(metrics.registry, db, logger);
        const fullRuns = new FullRuns({
          db,
          logger,
          batchSize: config.LEDGER_RECONCILIATION_FULL_BATCH,
          pace: BackgroundPace.fromConfig(config),
        });
        const follower = new JournalFollower({ db, logger, metrics, entriesMax: config.LEDGER_RECONCILIATION_INCREMENTAL_MAX_ENTRIES });
        if (config.LEDGER_RECONCILIATION_FOLLOW_INTERVAL_MS > 0) follower.start(config.LEDGER_RECONCILIATION_FOLLOW_INTERVAL_MS);
        return {
          routes: (app) =>
            app.use(
              ledgerReadRouter(db, { journalExamineMax: config.LEDGER_JOURNAL_EXAMINE_MAX }),
              balanceAtRouter(db),
              journalInternalRouter(db),
              ledgerReconciliationRouter(db, fullRuns, { incrementalEntriesMax: config.LEDGER_RECONCILIATION_INCREMENTAL_MAX_ENTRIES }),
            ),
          stop: async () => {
            await follower.stop();
            await fullRuns.stop();
            await sealing.stop();
            await consumer.stop();
          },
        };
      },
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
