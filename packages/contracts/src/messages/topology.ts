/**
 * Names of every exchange, queue and routing key. Each service declares the part it uses at
 * start; these constants are the only place the names are written.
 */
export const TOPOLOGY = {
  ledgerCommands: {
    exchange: 'ledger.commands',
    queue: 'ledger.commands',
    routingKey: 'ledger.command',
    deadLetterExchange: 'ledger.commands.dlx',
    deadLetterQueue: 'ledger.commands.dlq',
    /** Deliveries before a command that keeps failing is parked in the dead-letter queue. */
    deliveryLimit: 5,
  },
  ledgerEvents: {
    exchange: 'ledger.events',
    postedRoutingKey: 'ledger.posted',
    rejectedRoutingKey: 'ledger.rejected',
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
} as const;
