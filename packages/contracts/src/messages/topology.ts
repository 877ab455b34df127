/**
 * Names of every exchange, queue and routing key. Each service declares the part it uses at
 * start; these constants are the only place the names are written.
 */
export const TOPOLOGY = {
  ledgerCommands: {
    /**
     * Direct; a command's routing key is its tenant id (ledgerCommandRoutingKey). The ledger binds
     * each placed tenant to its partition's queue, so these bindings mirror its partition directory.
     */
    exchange: 'ledger.commands.by-tenant',
    /** A partition's queue is this prefix and its number: `ledger.commands.p07` (ledgerPartitionQueue). */
    partitionQueuePrefix: 'ledger.commands.p',
    /** The exchange's alternate exchange: a tenant not placed yet lands here, and the ledger places it. */
    unplacedExchange: 'ledger.commands.unplaced',
    unplacedQueue: 'ledger.commands.unplaced',
    deadLetterExchange: 'ledger.commands.dlx',
    deadLetterQueue: 'ledger.commands.dlq',
    /** Deliveries before a command that keeps failing is parked in the dead-letter queue. */
    deliveryLimit: 5,
  },
  ledgerEvents: {
    exchange: 'ledger.events',
    /** Results are routed as `ledger.<status>.<reference type>`: see ledgerResultRoutingKey. */
    resultRoutingKeyPrefix: 'ledger',
    /** `ledger.entries-posted.v1`: every committed entry with its lines, for read models. */
    entriesPostedRoutingKey: 'ledger.entries-posted',
  },
  identityEvents: {
    exchange: 'identity.events',
    tenantCreatedRoutingKey: 'tenant.created',
    tenantUpdatedRoutingKey: 'tenant.updated',
    apiKeyChangedRoutingKey: 'api_key.changed',
    /** The ledger's own queue of identity events (account provisioning). */
    ledgerQueue: 'ledger.identity-events',
  },
  auditRecords: {
    exchange: 'audit.records',
    routingKey: 'audit.record',
    /** Identity's queue: it owns the audit trail. */
    queue: 'identity.audit-records',
    deadLetterExchange: 'audit.records.dlx',
    deadLetterQueue: 'audit.records.dlq',
    deliveryLimit: 5,
  },
  platformEvents: {
    /** Topic; an event's routing key is its type (`transfer.completed`). */
    exchange: 'platform.events',
    /** Identity's queue: it logs every event and delivers it to the tenant's webhook endpoints. */
    queue: 'identity.platform-events',
    deadLetterExchange: 'platform.events.dlx',
    deadLetterQueue: 'platform.events.dlq',
    deliveryLimit: 5,
  },
} as const;

/** The queue of ledger partition `partition`, two digits at least so that the queues sort. */
export function ledgerPartitionQueue(partition: number): string {
  return `${TOPOLOGY.ledgerCommands.partitionQueuePrefix}${String(partition).padStart(2, '0')}`;
}

/** Every partition queue of a platform of `partitions` partitions. */
export function ledgerPartitionQueues(partitions: number): string[] {
  return Array.from({ length: partitions }, (_, partition) => ledgerPartitionQueue(partition));
}

/** A ledger command's routing key: its tenant, which the exchange's bindings route to the tenant's partition. */
export function ledgerCommandRoutingKey(tenantId: string): string {
  return tenantId;
}

/**
 * Every dead-letter queue of the platform, which the operators' dead-letter tooling reads
 * (docs/operations.md, "Dead letters"). Payments' and treasury's own queues are declared in their topology
 * files; test/e2e/dead-letters.test.ts checks that this list names each of them.
 */
export const DEAD_LETTER_QUEUES = [
  TOPOLOGY.ledgerCommands.deadLetterQueue,
  TOPOLOGY.auditRecords.deadLetterQueue,
  TOPOLOGY.platformEvents.deadLetterQueue,
  'payments.identity-events.dlq',
  'payments.ledger-events.dlq',
  'treasury.identity-events.dlq',
  'treasury.ledger-events.dlq',
  'treasury.analytics.dlq',
] as const;
export type DeadLetterQueue = (typeof DEAD_LETTER_QUEUES)[number];

/**
 * The routing key of a ledger result event: `ledger.posted.transfer`, `ledger.rejected.withdrawal`,
 * `ledger.applied.none`. A service binds its events queue to the reference types it finishes
 * (ledgerResultBindingKeys), so no service is delivered, and acknowledges, the results of
 * every other service's postings.
 */
export function ledgerResultRoutingKey(status: 'posted' | 'rejected' | 'applied', referenceType: string | null): string {
  return `${TOPOLOGY.ledgerEvents.resultRoutingKeyPrefix}.${status}.${routingWord(referenceType ?? 'none')}`;
}

/** The keys that deliver every posted and rejected result of postings of `referenceType`. */
export function ledgerResultBindingKeys(referenceType: string): string[] {
  return [ledgerResultRoutingKey('posted', referenceType), ledgerResultRoutingKey('rejected', referenceType)];
}

/** One word of a topic routing key: no dots or wildcards. */
function routingWord(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_');
}
