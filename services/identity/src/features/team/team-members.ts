import type { TeamMember } from '@wallet/contracts';
import type { Db, Tx } from '@wallet/kit';
import * as store from './team-store';

export type { InvitedMember, LoginCandidate, NewInvitedMember } from './team-store';

/*
 * What the other features of identity ask of the team: sessions, who may log in and the invite
 * a new member accepts; organizations, the first admin it invites. Through the team feature's
 * own store, which no other feature touches.
 */

/** Active members with a password and this address, in any letter case, across tenants unless a slug names one. */
export function findLoginCandidates(db: Db, email: string, tenantSlug: string | undefined): Promise<store.LoginCandidate[]> {
  return store.findLoginCandidates(db, email, tenantSlug);
}

/** The members who log in with this address, in any letter case, in every tenant: the ones a lock of the address keeps out. */
export async function findLoggingInMembers(db: Db, email: string): Promise<Array<{ member: TeamMember; tenantName: string }>> {
  const candidates = await store.findLoginCandidates(db, email, undefined);
  return candidates.map(({ member, tenantName }) => ({ member, tenantName }));
}

/** The invited member this invite token belongs to, while the invite is still open. */
export function findOpenInvite(db: Db, inviteTokenHash: string): Promise<TeamMember | null> {
  return store.findOpenInvite(db, inviteTokenHash);
}

/** Activates the invited member with its password and forgets the token; null when the invite is no longer open. */
export function acceptInvite(tx: Tx, memberId: string, inviteTokenHash: string, passwordHash: string): Promise<TeamMember | null> {
  return store.acceptInvite(tx, memberId, inviteTokenHash, passwordHash);
}

/** An invited member (no password yet), unless the address is already a member of the tenant: null then. */
export function insertInvitedMember(tx: Tx, member: store.NewInvitedMember): Promise<store.InvitedMember | null> {
  return store.insertInvitedMember(tx, member);
}

export function markInviteSent(db: Db, memberId: string): Promise<void> {
  return store.markInviteSent(db, memberId);
}

/** The first org-admin of each tenant: the one its organization was created with. */
export function firstAdminsOf(db: Db, tenantIds: string[]): Promise<Map<string, store.InvitedMember>> {
  return store.firstAdminsOf(db, tenantIds);
}

/** A tenant's active org-admins. */
export function activeAdminsOf(db: Db, tenantId: string): Promise<TeamMember[]> {
  return store.activeMembersOf(db, tenantId, { orgRole: 'org-admin' });
}

/** A tenant's active members, at most `limit`: those a notice may go to. */
export function activeMembersOf(db: Db, tenantId: string, limit: number): Promise<TeamMember[]> {
  return store.activeMembersOf(db, tenantId, { limit });
}
