import type { TeamMember } from '@wallet/contracts';
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
