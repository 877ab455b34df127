import type { Db, InternalClaims, Tx } from '@wallet/kit';
import * as store from './audit-store';

export type { NewAuditEvent } from './audit-store';

/*
 * How the other features of identity keep a record of what they did: through the audit
 * feature's own store, which no other feature touches.
 */

/** The actor fields of an audit record for a call with these claims; a key behind an actor is kept in metadata. */
export function auditActorFields(claims: InternalClaims): ReturnType<typeof store.auditActorFields> {
  return store.auditActorFields(claims);
}

/** Written in the caller's transaction: the action and its record commit together or not at all. */
export function recordAuditEvents(tx: Tx | Db, events: readonly store.NewAuditEvent[]): Promise<void> {
  return store.recordAuditEvents(tx, events);
}
