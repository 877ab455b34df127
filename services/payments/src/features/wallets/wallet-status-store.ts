import type { Environment, WalletStatus } from '@wallet/contracts';
import type { Db, Tx } from '@wallet/kit';

/** A freeze or unfreeze as sent to the ledger, with who asked and why (for its audit record). */
export interface StatusChange {
  commandId: string;
  walletId: string;
  tenantId: string;
  environment: Environment;
  toStatus: WalletStatus;
  state: 'pending' | 'applied' | 'rejected';
  reason: string;
  actorType: string;
  actorId: string;
  actorMetadata: Record<string, unknown>;
  correlationId: string | null;
  requestedAt: Date;
}

interface StatusChangeRow {
  command_id: string;
  wallet_id: string;
  tenant_id: string;
  environment: Environment;
  to_status: WalletStatus;
  state: StatusChange['state'];
  reason: string;
  actor_type: string;
  actor_id: string;
  actor_metadata: Record<string, unknown>;
  correlation_id: string | null;
  requested_at: Date;
}

const COLUMNS = [
  'command_id',
  'wallet_id',
  'tenant_id',
  'environment',
  'to_status',
  'state',
  'reason',
  'actor_type',
  'actor_id',
  'actor_metadata',
  'correlation_id',
  'requested_at',
];

function toChange(row: StatusChangeRow): StatusChange {
  return {
    commandId: row.command_id,
    walletId: row.wallet_id,
    tenantId: row.tenant_id,
    environment: row.environment,
    toStatus: row.to_status,
    state: row.state,
    reason: row.reason,
    actorType: row.actor_type,
    actorId: row.actor_id,
    actorMetadata: row.actor_metadata,
    correlationId: row.correlation_id,
    requestedAt: row.requested_at,
  };
}

export type NewStatusChange = Omit<StatusChange, 'state' | 'requestedAt'>;

/**
 * Claims the wallet's one pending slot for this change; null when another change holds it.
 * The partial unique index decides between concurrent claims.
 */
export async function claimStatusChange(db: Db, change: NewStatusChange): Promise<StatusChange | null> {
  const result = await db.raw(
    `INSERT INTO wallet_status_changes (command_id, wallet_id, tenant_id, environment, to_status, reason, actor_type, actor_id, actor_metadata, correlation_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)
     ON CONFLICT (wallet_id) WHERE state = 'pending' DO NOTHING
     RETURNING ${COLUMNS.join(', ')}`,
    [
      change.commandId,
      change.walletId,
      change.tenantId,
      change.environment,
      change.toStatus,
      change.reason,
      change.actorType,
      change.actorId,
      JSON.stringify(change.actorMetadata),
      change.correlationId,
    ],
  );
  const row = (result.rows as StatusChangeRow[])[0];
  return row ? toChange(row) : null;
}

export async function findPendingStatusChange(db: Db, walletId: string): Promise<StatusChange | null> {
  const row: StatusChangeRow | undefined = await db('wallet_status_changes')
    .where({ wallet_id: walletId, state: 'pending' })
    .first(COLUMNS);
  return row ? toChange(row) : null;
}

/** Pending changes claimed before `before`, oldest first: those whose requester stopped waiting. */
export async function listPendingStatusChanges(db: Db, before: Date, limit: number): Promise<StatusChange[]> {
  const rows: StatusChangeRow[] = await db('wallet_status_changes')
    .where('state', 'pending')
    .where('requested_at', '<', before)
    .orderBy('seq')
    .limit(limit)
    .select(COLUMNS);
  return rows.map(toChange);
}

/** Settles a pending change; false when it was settled already (by a concurrent settler). */
export async function settleStatusChange(tx: Tx, commandId: string, state: 'applied' | 'rejected'): Promise<boolean> {
  const updated = await tx('wallet_status_changes')
    .where({ command_id: commandId, state: 'pending' })
    .update({ state, settled_at: tx.fn.now() });
  return updated === 1;
}
