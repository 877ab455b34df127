import type { MemberStatus, OrgRole, TeamMember } from '@wallet/contracts';
import type { Db, Tx } from '@wallet/kit';

interface TeamMemberRow {
  id: string;
  tenant_id: string;
  name: string;
  email: string;
  org_role: TeamMember['orgRole'];
  status: TeamMember['status'];
  invite_sent_at: Date | null;
  created_at: Date;
}

export interface NewInvitedMember {
  id: string;
  tenantId: string;
  name: string;
  email: string;
  orgRole: TeamMember['orgRole'];
  inviteTokenHash: string;
  inviteExpiresAt: Date;
}

export type InvitedMember = TeamMember & { inviteEmailSent: boolean };

const COLUMNS = ['id', 'tenant_id', 'name', 'email', 'org_role', 'status', 'invite_sent_at', 'created_at'];

function toMember(row: TeamMemberRow): InvitedMember {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    email: row.email,
    orgRole: row.org_role,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    inviteEmailSent: row.invite_sent_at !== null,
  };
}

/**
 * Inserts an invited member (no password yet) unless the address is already a member of the
 * tenant, in any letter case; returns null then.
 */
export async function insertInvitedMember(tx: Tx, member: NewInvitedMember): Promise<InvitedMember | null> {
  const result = await tx.raw(
    `INSERT INTO team_members (id, tenant_id, name, email, org_role, status, invite_token_hash, invite_expires_at)
     VALUES (?, ?, ?, ?, ?, 'invited', ?, ?)
     ON CONFLICT (tenant_id, lower(email)) DO NOTHING
     RETURNING ${COLUMNS.join(', ')}`,
    [member.id, member.tenantId, member.name, member.email, member.orgRole, member.inviteTokenHash, member.inviteExpiresAt],
  );
  const row = (result.rows as TeamMemberRow[])[0];
  return row ? toMember(row) : null;
}

/**
 * A new token for a member still invited: the old hash is overwritten, so the earlier link stops
 * working, and the invite counts as not emailed until this one is.
 */
export async function renewInvite(tx: Tx, memberId: string, inviteTokenHash: string, inviteExpiresAt: Date): Promise<TeamMember | null> {
  const result = await tx.raw(
    `UPDATE team_members
        SET invite_token_hash = ?, invite_expires_at = ?, invite_sent_at = NULL
      WHERE id = ? AND status = 'invited'
      RETURNING ${COLUMNS.join(', ')}`,
    [inviteTokenHash, inviteExpiresAt, memberId],
  );
  const row = (result.rows as TeamMemberRow[])[0];
  return row ? toTeamMember(row) : null;
}

export async function markInviteSent(db: Db, memberId: string): Promise<void> {
  await db('team_members').where({ id: memberId }).update({ invite_sent_at: db.fn.now() });
}

/** The first org-admin of each tenant: the one its organization was created with. */
export async function firstAdminsOf(db: Db, tenantIds: string[]): Promise<Map<string, InvitedMember>> {
  const admins = new Map<string, InvitedMember>();
  if (tenantIds.length === 0) return admins;
  const rows: TeamMemberRow[] = await db('team_members')
    .distinctOn('tenant_id')
    .whereIn('tenant_id', tenantIds)
    .where({ org_role: 'org-admin' })
    .orderBy([{ column: 'tenant_id' }, { column: 'created_at' }, { column: 'id' }])
    .select(COLUMNS);
  for (const row of rows) admins.set(row.tenant_id, toMember(row));
  return admins;
}

/** A member as the team routes show it: never a password hash or anything about its invite. */
function toTeamMember(row: TeamMemberRow): TeamMember {
  const { inviteEmailSent: _inviteEmailSent, ...member } = toMember(row);
  return member;
}

export interface NewMember {
  id: string;
  tenantId: string;
  name: string;
  email: string;
  orgRole: OrgRole;
  passwordHash: string;
}

/** Inserts an active member unless the address is already a member of the tenant, in any case; returns null then. */
export async function insertMember(tx: Tx, member: NewMember): Promise<TeamMember | null> {
  const result = await tx.raw(
    `INSERT INTO team_members (id, tenant_id, name, email, org_role, status, password_hash)
     VALUES (?, ?, ?, ?, ?, 'active', ?)
     ON CONFLICT (tenant_id, lower(email)) DO NOTHING
     RETURNING ${COLUMNS.join(', ')}`,
    [member.id, member.tenantId, member.name, member.email, member.orgRole, member.passwordHash],
  );
  const row = (result.rows as TeamMemberRow[])[0];
  return row ? toTeamMember(row) : null;
}

export async function findMember(db: Db | Tx, tenantId: string, memberId: string): Promise<TeamMember | null> {
  const row: TeamMemberRow | undefined = await db('team_members').where({ tenant_id: tenantId, id: memberId }).first(COLUMNS);
  return row ? toTeamMember(row) : null;
}

/** The names of the tenant's members among `ids`: another tenant's member, or no member, is not there. */
export async function memberNames(db: Db, tenantId: string, ids: readonly string[]): Promise<Array<{ id: string; name: string }>> {
  return db('team_members').where({ tenant_id: tenantId }).whereIn('id', ids).orderBy('id').select(['id', 'name']);
}

export interface MemberListFilter {
  beforeSeq?: string | undefined;
  limit: number;
  orgRole?: OrgRole | undefined;
  status?: MemberStatus | undefined;
}

/** Newest first; one more row than asked, so the caller knows whether a next page exists. */
export async function listMembers(db: Db, tenantId: string, filter: MemberListFilter): Promise<Array<TeamMember & { seq: string }>> {
  const query = db('team_members')
    .where({ tenant_id: tenantId })
    .orderBy('seq', 'desc')
    .limit(filter.limit + 1)
    .select([...COLUMNS, 'seq']);
  if (filter.beforeSeq !== undefined) query.where('seq', '<', filter.beforeSeq);
  if (filter.orgRole) query.where('org_role', filter.orgRole);
  if (filter.status) query.where('status', filter.status);
  const rows: Array<TeamMemberRow & { seq: string }> = await query;
  return rows.map((row) => ({ ...toTeamMember(row), seq: row.seq }));
}

/**
 * Locks every org-admin row of the tenant, always in id order. Every role or status change
 * takes this lock before it touches its member, so changes that could leave a tenant without
 * an active org-admin run one after the other and cannot deadlock each other.
 * NO KEY UPDATE: sessions being inserted for these members (a foreign key share lock) still pass.
 */
export async function lockTenantAdmins(tx: Tx, tenantId: string): Promise<void> {
  await tx.raw(`SELECT id FROM team_members WHERE tenant_id = ? AND org_role = 'org-admin' ORDER BY id FOR NO KEY UPDATE`, [tenantId]);
}

export async function lockMember(tx: Tx, tenantId: string, memberId: string): Promise<TeamMember | null> {
  const result = await tx.raw(`SELECT ${COLUMNS.join(', ')} FROM team_members WHERE tenant_id = ? AND id = ? FOR NO KEY UPDATE`, [
    tenantId,
    memberId,
  ]);
  const row = (result.rows as TeamMemberRow[])[0];
  return row ? toTeamMember(row) : null;
}

/** Active org-admins of the tenant other than this member; read after lockTenantAdmins, so it is current. */
export async function countOtherActiveAdmins(tx: Tx, tenantId: string, memberId: string): Promise<number> {
  const result = await tx.raw(
    `SELECT count(*)::int AS n FROM team_members WHERE tenant_id = ? AND org_role = 'org-admin' AND status = 'active' AND id <> ?`,
    [tenantId, memberId],
  );
  return (result.rows as Array<{ n: number }>)[0]?.n ?? 0;
}

export interface MemberChanges {
  orgRole?: OrgRole | undefined;
  /** `active` makes a member who never set a password `invited` again, not active. */
  status?: 'active' | 'deactivated' | undefined;
}

export async function updateMember(tx: Tx, memberId: string, changes: MemberChanges): Promise<TeamMember> {
  const result = await tx.raw(
    `UPDATE team_members
        SET org_role = coalesce(?, org_role),
            status = CASE ?::text
                       WHEN 'deactivated' THEN 'deactivated'
                       WHEN 'active' THEN CASE WHEN password_hash IS NULL THEN 'invited' ELSE 'active' END
                       ELSE status
                     END
      WHERE id = ?
      RETURNING ${COLUMNS.join(', ')}`,
    [changes.orgRole ?? null, changes.status ?? null, memberId],
  );
  const row = (result.rows as TeamMemberRow[])[0];
  if (!row) throw new Error(`team member ${memberId} vanished while locked`);
  return toTeamMember(row);
}

export interface LoginCandidate {
  member: TeamMember;
  passwordHash: string;
  tenantSlug: string;
  tenantName: string;
}

/** Active members with a password and this address, in any letter case, across tenants unless a slug names one. */
export async function findLoginCandidates(db: Db, email: string, tenantSlug: string | undefined): Promise<LoginCandidate[]> {
  const query = db('team_members as m')
    .join('tenants as t', 't.id', 'm.tenant_id')
    .whereRaw('lower(m.email) = lower(?)', [email])
    .where('m.status', 'active')
    .whereNotNull('m.password_hash')
    .orderBy('m.id')
    .select([...COLUMNS.map((column) => `m.${column}`), 'm.password_hash', 't.slug as tenant_slug', 't.name as tenant_name']);
  if (tenantSlug !== undefined) query.where('t.slug', tenantSlug);
  const rows: Array<TeamMemberRow & { password_hash: string; tenant_slug: string; tenant_name: string }> = await query;
  return rows.map((row) => ({
    member: toTeamMember(row),
    passwordHash: row.password_hash,
    tenantSlug: row.tenant_slug,
    tenantName: row.tenant_name,
  }));
}

/** The invited member this invite token belongs to, while the invite is still open. */
export async function findOpenInvite(db: Db, inviteTokenHash: string): Promise<TeamMember | null> {
  const row: TeamMemberRow | undefined = await db('team_members')
    .where({ invite_token_hash: inviteTokenHash, status: 'invited' })
    .where('invite_expires_at', '>', db.fn.now())
    .first(COLUMNS);
  return row ? toTeamMember(row) : null;
}

/**
 * Activates the invited member with its password and forgets the token, in one conditional
 * update: of two concurrent acceptances of one token, only one finds it still there.
 */
export async function acceptInvite(tx: Tx, memberId: string, inviteTokenHash: string, passwordHash: string): Promise<TeamMember | null> {
  const result = await tx.raw(
    `UPDATE team_members
        SET status = 'active', password_hash = ?, invite_token_hash = NULL, invite_expires_at = NULL
      WHERE id = ? AND invite_token_hash = ? AND status = 'invited' AND invite_expires_at > now()
      RETURNING ${COLUMNS.join(', ')}`,
    [passwordHash, memberId, inviteTokenHash],
  );
  const row = (result.rows as TeamMemberRow[])[0];
  return row ? toTeamMember(row) : null;
}

/** A tenant's active org-admins: whom the platform tells of what it did to the tenant's setup (a webhook endpoint disabled). */
/** A tenant's active members, of one role when `orgRole` names it, oldest first, at most `limit` of them when given. */
export async function activeMembersOf(db: Db, tenantId: string, only: { orgRole?: OrgRole; limit?: number } = {}): Promise<TeamMember[]> {
  const query = db('team_members').where({ tenant_id: tenantId, status: 'active' }).orderBy('created_at').select(COLUMNS);
  if (only.orgRole) query.where({ org_role: only.orgRole });
  if (only.limit !== undefined) query.limit(only.limit);
  const rows: TeamMemberRow[] = await query;
  return rows.map(toTeamMember);
}
