import { createHash } from 'node:crypto';
import { ledgerCommandRoutingKey, ledgerPartitionQueue, TOPOLOGY } from '@wallet/contracts';
import type { Broker, Db } from '@wallet/kit';

/**
 * Where a tenant is placed when it is first seen: a hash of its id, spread evenly over the
 * partitions. Only the first placement uses it; the directory row decides from then on, so a
 * tenant can be moved, and the partition count raised, without moving anyone else.
 */
export function hashPartition(tenantId: string, partitions: number): number {
  return createHash('sha256').update(tenantId).digest().readUInt32BE(0) % partitions;
}

/** The tenant's partition, placing it by its hash when the directory has none yet. */
export async function placeTenant(db: Db, tenantId: string, partitions: number): Promise<number> {
  // The insert's row is not visible to the same statement's read, so one branch answers.
  const { rows } = await db.raw<{ rows: Array<{ partition: number }> }>(
    `WITH placed AS (
       INSERT INTO ledger_tenant_partitions (tenant_id, partition) VALUES (?, ?) ON CONFLICT (tenant_id) DO NOTHING RETURNING partition
     )
     SELECT partition FROM placed UNION ALL SELECT partition FROM ledger_tenant_partitions WHERE tenant_id = ? LIMIT 1`,
    [tenantId, hashPartition(tenantId, partitions), tenantId],
  );
  const placed = rows[0];
  if (!placed) throw new Error(`tenant ${tenantId} could not be placed`);
  return placed.partition;
}

/** Routes the tenant's commands to its partition's queue: the broker's binding mirrors the directory row. */
export async function bindTenant(broker: Broker, tenantId: string, partition: number): Promise<void> {
  await broker.bindQueue(ledgerPartitionQueue(partition), TOPOLOGY.ledgerCommands.exchange, ledgerCommandRoutingKey(tenantId));
}

/** Places the tenant and binds its commands' route: what the ledger does for a tenant it meets. */
export async function placeAndBind(options: { db: Db; broker: Broker; partitions: number }, tenantId: string): Promise<number> {
  const partition = await placeTenant(options.db, tenantId, options.partitions);
  await bindTenant(options.broker, tenantId, partition);
  return partition;
}

/**
 * Refuses a partition count below a placement already made: its tenants' queue would have no
 * writer. Raising the count is safe (placed tenants stay; new ones spread over more).
 */
export async function assertPartitionsCover(db: Db, partitions: number): Promise<void> {
  const row = await db('ledger_tenant_partitions').max<{ highest: number | null }>('partition as highest').first();
  const highest = row?.highest ?? null;
  if (highest !== null && highest >= partitions) {
    throw new Error(
      `LEDGER_PARTITIONS is ${partitions} but tenants are placed up to partition ${highest}; it can be raised, never lowered`,
    );
  }
}
