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
  type ServiceConfig,
  type ServiceParts,
  startService,
} from '@wallet/kit';
import { z } from 'zod';
import { migrations } from '../migrations';
import { balanceAtRouter } from './features/accounts/balance-router';
import { journalInternalRouter } from './features/journal/journal-internal-router';
import { ledgerReadRouter } from './features/journal/journal-router';
import { registerSealingGauge, startStampSealing } from './features/journal/journal-stamps';
import { PostingConsumer, PostingMetrics } from './features/posting/posting-consumer';
import { processedCommandsRetentionRule } from './features/posting/posting-retention';
import { LedgerShards, mapPartitionsToShards } from './features/partitions/ledger-shards';
import { assertPartitionsCover } from './features/partitions/partition-directory';
import { PartitionClaims } from './features/partitions/partition-epochs';
import { startUnplacedConsumer } from './features/partitions/unplaced-consumer';
import { startProvisioningConsumer } from './features/provisioning/provisioning-consumer';
import { FullRuns } from './features/reconciliation/full-runs';
import { JournalFollower } from './features/reconciliation/journal-follower';
import { ShardedFullRuns } from './features/reconciliation/sharded-full-runs';
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
  /**
   * The ledger databases beside its own (shard 0), separated by spaces: shard 1, 2, ... Each may
   * be on its own PostgreSQL server (a multi-host URL for a formation). Partitions map to shards
   * in shard 0's ledger_partition_shards; none by default: one shard (docs/scaling.md).
   */
  LEDGER_SHARDS: z
    .string()
    .default('')
    .transform((text) => text.split(/\s+/).filter((url) => url !== '')),
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

/** This process's claims on the partitions the broker delivers it (on one shard), under a name that says which process it is. */
function partitionClaims(db: Db, writer: string, logger: Logger): PartitionClaims {
  return new PartitionClaims(db, writer, (partition, epoch) => logger.info({ partition, epoch, writer }, 'ledger partition claimed'));
}

type LedgerConfig = ServiceConfig<typeof ledgerConfigShape>;

/** One posting consumer per shard holding partitions: a batch commits in one database, under its partitions' epochs there. */
async function startWriters(parts: ServiceParts<LedgerConfig>, shards: LedgerShards): Promise<PostingConsumer[]> {
  const { config, broker, logger } = parts;
  const writer = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const metrics = new PostingMetrics(parts.metrics);
  const consumers: PostingConsumer[] = [];
  for (const [shard, { db, relay }] of shards.shards.entries()) {
    const partitions = shards.partitionsOf(shard);
    if (partitions.length === 0) continue;
    const consumer = new PostingConsumer({
      broker,
      db,
      relay,
      logger,
      metrics,
      partitions,
      claims: partitionClaims(db, writer, logger),
      batchSizeMax: config.LEDGER_BATCH_SIZE_MAX,
      pipelineDepth: config.LEDGER_PIPELINE_DEPTH,
    });
    await consumer.start();
    consumers.push(consumer);
  }
  return consumers;
}

/** Per shard, the journal's upkeep: stamp sealing, full runs and the follower; how to stop them. */
function startUpkeep(parts: ServiceParts<LedgerConfig>, shards: LedgerShards) {
  const { config, logger, metrics } = parts;
  const dbs = shards.shards.map((shard) => shard.db);
  const sealings = dbs.map((db) => startStampSealing(db, logger, config.LEDGER_JOURNAL_STAMP_SEAL_INTERVAL_MS));
  registerSealingGauge(metrics.registry, shards.home.db, logger);
  const pace = BackgroundPace.fromConfig(config);
  const fullRuns = new ShardedFullRuns(
    shards,
    dbs.map((db) => new FullRuns({ db, logger, batchSize: config.LEDGER_RECONCILIATION_FULL_BATCH, pace })),
  );
  const follower = new JournalFollower({ dbs, logger, metrics, entriesMax: config.LEDGER_RECONCILIATION_INCREMENTAL_MAX_ENTRIES });
  if (config.LEDGER_RECONCILIATION_FOLLOW_INTERVAL_MS > 0) follower.start(config.LEDGER_RECONCILIATION_FOLLOW_INTERVAL_MS);
  return {
    fullRuns,
    stop: async () => {
      await follower.stop();
      await fullRuns.stop();
      for (const sealing of sealings) await sealing.stop();
    },
  };
}

/** The ledger's databases, and the map of its partitions to them (made for partitions that have none yet). */
async function ledgerShards(parts: ServiceParts<LedgerConfig>): Promise<LedgerShards> {
  const home = parts.db;
  const partitions = parts.config.LEDGER_PARTITIONS;
  await assertPartitionsCover(home, partitions);
  return new LedgerShards(parts.shards, await mapPartitionsToShards(home, partitions, parts.shards.length));
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
      shardUrls: (config) => config.LEDGER_SHARDS,
      wire: async (parts) => {
        const { config, broker, logger } = parts;
        const shards = await ledgerShards(parts);
        const writers = await startWriters(parts, shards);
        const home = shards.home.db;
        await startUnplacedConsumer({ broker, db: home, logger, partitions: config.LEDGER_PARTITIONS });
        await startProvisioningConsumer({ broker, shards, logger, partitions: config.LEDGER_PARTITIONS });
        const upkeep = startUpkeep(parts, shards);
        return {
          routes: (app) =>
            app.use(
              ledgerReadRouter(shards, { journalExamineMax: config.LEDGER_JOURNAL_EXAMINE_MAX }),
              balanceAtRouter(shards),
              journalInternalRouter(shards),
              ledgerReconciliationRouter(shards, upkeep.fullRuns, {
                incrementalEntriesMax: config.LEDGER_RECONCILIATION_INCREMENTAL_MAX_ENTRIES,
              }),
            ),
          stop: async () => {
            await upkeep.stop();
            for (const writer of writers) await writer.stop();
          },
        };
      },
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
