import type { Db, Tx } from '@wallet/kit';

/**
 * A batch of a partition this writer no longer holds: another writer claimed it since (a newer
 * epoch). Nothing of the batch is written; its messages are the new writer's to apply.
 */
export class PartitionFencedError extends Error {
  constructor(
    readonly partition: number,
    readonly heldEpoch: string,
    readonly currentEpoch: string | null,
  ) {
    super(`partition ${partition} was claimed by another writer (epoch ${currentEpoch ?? 'none'}, held ${heldEpoch})`);
    this.name = 'PartitionFencedError';
  }
}

/**
 * Takes the partition for `writer`: a new epoch, so that whoever held it before can no longer
 * commit (its commits check their epoch, assertEpochs). Waits for a commit of the previous
 * holder in progress, which then lands before the hand-over.
 */
export async function claimPartition(db: Db, partition: number, writer: string): Promise<string> {
  const { rows } = await db.raw<{ rows: Array<{ epoch: string }> }>(
    `INSERT INTO ledger_partition_epochs (partition, epoch, writer) VALUES (?, 1, ?)
     ON CONFLICT (partition) DO UPDATE SET epoch = ledger_partition_epochs.epoch + 1, writer = EXCLUDED.writer, claimed_at = now()
     RETURNING epoch::text AS epoch`,
    [partition, writer],
  );
  const claimed = rows[0];
  if (!claimed) throw new Error(`partition ${partition} could not be claimed`);
  return claimed.epoch;
}

/**
 * Inside a batch's transaction: every partition of the batch is still at the epoch this writer
 * claimed. The rows stay share-locked to the commit, so a claim cannot slip in between.
 */
export async function assertEpochs(tx: Tx, held: ReadonlyMap<number, string>): Promise<void> {
  if (held.size === 0) return;
  const { rows } = await tx.raw<{ rows: Array<{ partition: number; epoch: string }> }>(
    'SELECT partition, epoch::text AS epoch FROM ledger_partition_epochs WHERE partition = ANY(?) FOR SHARE',
    [[...held.keys()]],
  );
  const current = new Map(rows.map((row) => [row.partition, row.epoch]));
  for (const [partition, epoch] of held) {
    const now = current.get(partition) ?? null;
    if (now !== epoch) throw new PartitionFencedError(partition, epoch, now);
  }
}

/** What a claim is made for: a delivery's partition, on the channel it came on. */
export interface PartitionDelivery {
  partition: number;
  channel: object;
  channelClosed: AbortSignal;
}

/**
 * The partitions this writer holds, one claim per partition and consumer channel. The broker's
 * single active consumer decides who applies a partition; a delivery on a channel shows it was
 * this one, so its first delivery claims the partition (a new epoch). A channel that closed, or
 * whose batch was fenced, claims nothing again: its deliveries went back to the queue.
 */
export class PartitionClaims {
  private readonly claims = new WeakMap<object, Map<number, Promise<string>>>();
  private readonly fenced = new WeakSet<object>();

  constructor(
    private readonly db: Db,
    readonly writer: string,
    private readonly onClaimed: (partition: number, epoch: string) => void = () => undefined,
  ) {}

  /** The epoch of each partition of `deliveries`, claimed where this channel has not yet. */
  async epochsFor(deliveries: readonly PartitionDelivery[]): Promise<Map<number, string>> {
    const epochs = new Map<number, string>();
    for (const delivery of deliveries) {
      const epoch = await this.epochOn(delivery);
      const other = epochs.get(delivery.partition);
      // Two channels of one partition in a batch: the older one's deliveries are back in the queue.
      if (other !== undefined && other !== epoch) throw new PartitionFencedError(delivery.partition, epoch, other);
      epochs.set(delivery.partition, epoch);
    }
    return epochs;
  }

  /** The batch of `deliveries` was fenced: none of their channels claims again. */
  fence(deliveries: readonly PartitionDelivery[]): void {
    for (const delivery of deliveries) this.fenced.add(delivery.channel);
  }

  private epochOn(delivery: PartitionDelivery): Promise<string> {
    if (this.fenced.has(delivery.channel) || delivery.channelClosed.aborted) {
      return Promise.reject(new PartitionFencedError(delivery.partition, 'lost', null));
    }
    let held = this.claims.get(delivery.channel);
    if (!held) {
      held = new Map();
      this.claims.set(delivery.channel, held);
    }
    const known = held.get(delivery.partition);
    if (known) return known;
    const claiming = claimPartition(this.db, delivery.partition, this.writer).then((epoch) => {
      this.onClaimed(delivery.partition, epoch);
      return epoch;
    });
    held.set(delivery.partition, claiming);
    // A claim that failed (the database away) is made again by the batch's retry.
    claiming.catch(() => held.delete(delivery.partition));
    return claiming;
  }
}
