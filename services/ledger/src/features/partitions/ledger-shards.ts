import type { Db, ShardParts } from '@wallet/kit';
import { hashPartition } from './partition-directory';

/** Tenants whose partition a process remembers; past it the memory starts again (a directory read each). */
const TENANTS_REMEMBERED_MAX = 100_000;

/**
 * Maps the partitions that have no shard yet, spread evenly (partition modulo the shard count),
 * and answers every partition's shard. A mapped partition keeps its shard whatever the count
 * becomes: adding a shard maps nothing to it until partitions are moved (docs/scaling.md). A map
 * naming a shard beyond those configured is refused: its tenants would have no database.
 */
export async function mapPartitionsToShards(home: Db, partitions: number, shards: number): Promise<number[]> {
  await home.raw(
    `INSERT INTO ledger_partition_shards (partition, shard)
     SELECT partition, partition % ? FROM generate_series(0, ? - 1) AS partition
     ON CONFLICT (partition) DO NOTHING`,
    [shards, partitions],
  );
  const rows: Array<{ partition: number; shard: number }> = await home('ledger_partition_shards')
    .where('partition', '<', partitions)
    .select('partition', 'shard');
  const map = new Array<number>(partitions).fill(0);
  for (const row of rows) {
    if (row.shard >= shards) {
      throw new Error(`partition ${row.partition} is mapped to shard ${row.shard}, but LEDGER_SHARDS names ${shards - 1} beside shard 0`);
    }
    map[row.partition] = row.shard;
  }
  return map;
}

/**
 * The ledger's databases and which partitions each holds. Shard 0 is the ledger's own database
 * and keeps the tenant directory and the partition map; every shard keeps its partitions'
 * accounts, journal, epochs, outbox and checkpoints. A tenant's rows are all in one shard.
 */
export class LedgerShards {
  private readonly tenantPartitions = new Map<string, number>();

  constructor(
    readonly shards: readonly ShardParts[],
    /** The shard of each partition, by partition number. */
    private readonly partitionShard: readonly number[],
  ) {}

  /** Where the directory and the partition map are. */
  get home(): ShardParts {
    return this.part(0);
  }

  get count(): number {
    return this.shards.length;
  }

  part(shard: number): ShardParts {
    const found = this.shards[shard];
    if (!found) throw new Error(`no ledger shard ${shard}`);
    return found;
  }

  /** The partitions shard `shard` holds. */
  partitionsOf(shard: number): number[] {
    return this.partitionShard.flatMap((each, partition) => (each === shard ? [partition] : []));
  }

  shardOfPartition(partition: number): ShardParts {
    return this.part(this.partitionShard[partition] ?? 0);
  }

  /**
   * The shard holding the tenant's rows. A tenant the directory does not have yet has none: its
   * hashed partition's shard, where it will be placed, answers for it (with nothing).
   */
  async shardOfTenant(tenantId: string): Promise<number> {
    if (this.shards.length === 1) return 0;
    return this.partitionShard[await this.partitionOf(tenantId)] ?? 0;
  }

  /** The shard of each tenant, the unknown ones read from the directory in one query: a request may name thousands. */
  async shardsOfTenants(tenantIds: readonly string[]): Promise<Map<string, number>> {
    if (this.shards.length > 1) await this.learnPartitions(tenantIds.filter((tenantId) => !this.tenantPartitions.has(tenantId)));
    const shards = new Map<string, number>();
    for (const tenantId of tenantIds) shards.set(tenantId, await this.shardOfTenant(tenantId));
    return shards;
  }

  async dbOfTenant(tenantId: string): Promise<Db> {
    return this.part(await this.shardOfTenant(tenantId)).db;
  }

  /** A tenant's partition changes only when it is moved, which restarts the ledger instances (docs/scaling.md). */
  private async partitionOf(tenantId: string): Promise<number> {
    if (!this.tenantPartitions.has(tenantId)) await this.learnPartitions([tenantId]);
    return this.tenantPartitions.get(tenantId) ?? hashPartition(tenantId, this.partitionShard.length);
  }

  /** Remembers the placed tenants' partitions; a tenant not placed yet is not remembered, so its placement is read next time. */
  private async learnPartitions(tenantIds: readonly string[]): Promise<void> {
    if (tenantIds.length === 0) return;
    const rows: Array<{ tenant_id: string; partition: number }> = await this.home
      .db('ledger_tenant_partitions')
      // One array parameter: a list of scopes may be longer than a statement's parameters can be.
      .whereRaw('tenant_id = ANY(?)', [[...new Set(tenantIds)]])
      .select('tenant_id', 'partition');
    if (this.tenantPartitions.size + rows.length > TENANTS_REMEMBERED_MAX) this.tenantPartitions.clear();
    for (const row of rows) this.tenantPartitions.set(row.tenant_id, row.partition);
  }

  /** Asks every shard and answers their answers, in shard order: a platform-wide read's fan-out. */
  each<Result>(read: (db: Db, shard: number) => Promise<Result>): Promise<Result[]> {
    return Promise.all(this.shards.map((part, shard) => read(part.db, shard)));
  }
}
