import { createDb, type Db } from '@wallet/kit';
import { type ClusterPostgres, LEDGER_DATABASE } from './cluster';

/** A ledger partition's writer (the pid in its claim), epoch, when it claimed the partition, and the shard the claim is in. */
export interface Holder {
  pid: number;
  epoch: string;
  claimedAt: number;
  shard: number;
}

/**
 * The fault run's reads of the ledger's databases. A tenant's accounts and journal, and its
 * partition's epochs, are in its partition's shard only, so every question is asked of every
 * shard and the answers combined; the tenant directory and the partition map are in shard 0.
 */
export class LedgerShardReads {
  private constructor(private readonly shards: readonly Db[]) {}

  /** A small pool per shard, resolving its formation's primary as the ledger does, so reads follow a failover. */
  static open(postgres: ClusterPostgres): LedgerShardReads {
    return new LedgerShardReads(postgres.ledger.map((formation) => createDb(formation.url(LEDGER_DATABASE), { poolMax: 2 })));
  }

  get count(): number {
    return this.shards.length;
  }

  /** Each claimed partition's holder. A partition's epochs live in its own shard, so no two shards answer for one. */
  async holders(): Promise<Map<number, Holder>> {
    const found = new Map<number, Holder>();
    const perShard = await Promise.all(
      this.shards.map((db): Promise<Array<{ partition: number; epoch: string; writer: string; claimed_at: Date }>> =>
        db('ledger_partition_epochs').select('partition', 'epoch', 'writer', 'claimed_at'),
      ),
    );
    for (const [shard, rows] of perShard.entries()) {
      for (const row of rows) {
        const pid = Number(row.writer.split(':')[1]);
        found.set(row.partition, { pid, epoch: String(row.epoch), claimedAt: row.claimed_at.getTime(), shard });
      }
    }
    return found;
  }

  /**
   * Each transfer's journal entries, summed over the shards (a transfer posted in two shards counts
   * twice, as a doubled one does), and how many transfers each shard holds.
   */
  async transferEntries(): Promise<{ entries: Map<string, number>; perShard: number[] }> {
    const entries = new Map<string, number>();
    const perShard: number[] = [];
    for (const db of this.shards) {
      const rows: Array<{ reference_id: string; count: string }> = await db('journal_entries')
        .where({ reference_type: 'transfer' })
        .groupBy('reference_id')
        .select('reference_id')
        .count('* as count');
      for (const row of rows) entries.set(row.reference_id, (entries.get(row.reference_id) ?? 0) + Number(row.count));
      perShard.push(rows.length);
    }
    return { entries, perShard };
  }

  /** The partition and shard of each of `tenantIds` the ledger has placed, from shard 0's directory and partition map. */
  async placements(tenantIds: readonly string[]): Promise<Map<string, { partition: number; shard: number }>> {
    const home = this.shards[0];
    if (!home) throw new Error('no ledger shard');
    const rows: Array<{ tenant_id: string; partition: number; shard: number }> = await home('ledger_tenant_partitions as placed')
      .join('ledger_partition_shards as mapped', 'mapped.partition', 'placed.partition')
      .whereIn('placed.tenant_id', [...tenantIds])
      .select('placed.tenant_id', 'placed.partition', 'mapped.shard');
    return new Map(rows.map((row) => [row.tenant_id, { partition: row.partition, shard: row.shard }]));
  }

  async destroy(): Promise<void> {
    for (const db of this.shards) await db.destroy();
  }
}
