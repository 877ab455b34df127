import {
  type MemberName,
  type CreateTeamMemberBody,
  hasScope,
  type InviteTeamMemberBody,
  type MemberPrincipal,
  newId,
  type OrgRole,
  type Page,
  scopesOfRole,
  type TeamInvite,
  type TeamMember,
  type TeamMemberQuery,
  type UpdateTeamMemberBody,
} from '@wallet/contracts';
import { AppError, cursorFields, type Db, decodeCursor, encodeCursor, type InternalClaims, type Tx } from '@wallet/kit';
import { auditActorFields, type NewAuditEvent, recordAuditEvents } from '../audit/audit-trail';
import { findTenant } from '../tenants/tenant-lookup';
import { type InviteToken, newInviteToken } from './invite-tokens';
import type { InviteContext, MemberInvites } from './member-invites';
import { hashPassword } from './passwords';
import {
  countOtherActiveAdmins,
  findMember,
  insertInvitedMember,
  insertMember,
  listMembers,
  lockMember,
  lockTenantAdmins,
  memberNames,
  renewInvite,
  updateMember,
} from './team-store';

function memberNotFound(): AppError {
  // Another tenant's member is as unknown as one that never existed.
  return new AppError('MEMBER_NOT_FOUND', 'No such team member');
}

/**
 * A caller hands on only what it holds: it may give a role, or touch a member holding a role,
 * only when its own scopes cover every scope of that role.
 */
function requireCoversRole(claims: InternalClaims, role: OrgRole, doing: string): void {
  const missingScopes = scopesOfRole(role).filter((scope) => !hasScope(claims.scopes, scope));
  if (missingScopes.length > 0) {
    throw new AppError('SCOPE_ESCALATION', `Your credential does not hold every scope of the ${role} role, so it cannot ${doing}`, {
      orgRole: role,
      missingScopes,
    });
  }
}

/** The sessions of members, which a deactivation ends in its own transaction. */
export interface MemberSessions {
  /** Revokes every open session of the member; returns how many there were. */
  revokeAllOf(tx: Tx, memberId: string): Promise<number>;
}

/** A team record of the member the call was made on, by its actor. */
function memberEvent(
  claims: InternalClaims,
  tenantId: string,
  memberId: string,
  action: string,
  metadata: Record<string, unknown>,
): NewAuditEvent {
  const actor = auditActorFields(claims);
  return {
    tenantId,
    environment: null,
    action,
    actorType: actor.actorType,
    actorId: actor.actorId,
    targetType: 'team_member',
    targetId: memberId,
    metadata: { ...actor.metadata, ...metadata },
  };
}

/** The team of a tenant: shared by its test and live environments. */
export class TeamService {
  constructor(private readonly deps: { db: Db; sessions: MemberSessions; invites: MemberInvites }) {}

  async create(claims: InternalClaims, tenantId: string, body: CreateTeamMemberBody): Promise<TeamMember> {
    requireCoversRole(claims, body.orgRole, `add a member as ${body.orgRole}`);
    // Hashing is slow on purpose; it happens before the transaction so no lock waits on it.
    const passwordHash = await hashPassword(body.password);
    return this.deps.db.transaction(async (tx) => {
      const member = await insertMember(tx, {
        id: newId('user'),
        tenantId,
        name: body.name,
        email: body.email,
        orgRole: body.orgRole,
        passwordHash,
      });
      if (!member) throw new AppError('EMAIL_TAKEN', 'This email is already a member of the organization', { email: body.email });
      const metadata = { email: member.email, orgRole: member.orgRole };
      await recordAuditEvents(tx, [memberEvent(claims, tenantId, member.id, 'team_member.created', metadata)]);
      return member;
    });
  }

  /**
   * An invited member, with no password until it accepts. The invite is emailed after the commit,
   * or its link answered to this caller alone when no email went out.
   */
  async invite(claims: InternalClaims, tenantId: string, body: InviteTeamMemberBody): Promise<TeamInvite> {
    requireCoversRole(claims, body.orgRole, `invite a member as ${body.orgRole}`);
    const invite = newInviteToken();
    const member = await this.deps.db.transaction(async (tx) => {
      const inserted = await insertInvitedMember(tx, {
        id: newId('user'),
        tenantId,
        name: body.name,
        email: body.email,
        orgRole: body.orgRole,
        inviteTokenHash: invite.tokenHash,
        inviteExpiresAt: invite.expiresAt,
      });
      if (!inserted) throw new AppError('EMAIL_TAKEN', 'This email is already a member of the organization', { email: body.email });
      const { inviteEmailSent: _notYet, ...member } = inserted;
      const metadata = { email: member.email, orgRole: member.orgRole };
      await recordAuditEvents(tx, [memberEvent(claims, tenantId, member.id, 'team_member.invited', metadata)]);
      return member;
    });
    return this.deliverInvite(claims, member, invite);
  }

  /** A new invite for a member who has not accepted yet; the earlier token stops working with this commit. */
  async resendInvite(claims: InternalClaims, tenantId: string, memberId: string): Promise<TeamInvite> {
    const invite = newInviteToken();
    const member = await this.deps.db.transaction(async (tx) => {
      const current = await lockMember(tx, tenantId, memberId);
      if (!current) throw memberNotFound();
      requireCoversRole(claims, current.orgRole, `invite a member who is ${current.orgRole}`);
      const renewed = await renewInvite(tx, current.id, invite.tokenHash, invite.expiresAt);
      if (!renewed) {
        throw new AppError('MEMBER_NOT_INVITED', `This member is ${current.status}: only an invited member is sent an invite`, {
          status: current.status,
        });
      }
      const metadata = { email: renewed.email, orgRole: renewed.orgRole };
      await recordAuditEvents(tx, [memberEvent(claims, tenantId, renewed.id, 'team_member.invite_resent', metadata)]);
      return renewed;
    });
    return this.deliverInvite(claims, member, invite);
  }

  private async deliverInvite(claims: InternalClaims, member: TeamMember, invite: InviteToken): Promise<TeamInvite> {
    const delivery = await this.deps.invites.deliver(member, invite, await this.inviteContext(claims, member));
    return { ...member, ...delivery };
  }

  /** The organization's name, and the inviter's when a member invites (a key naming no member is nobody's). */
  private async inviteContext(claims: InternalClaims, member: TeamMember): Promise<InviteContext> {
    const [tenant, inviter] = await Promise.all([
      findTenant(this.deps.db, member.tenantId),
      claims.actor?.type === 'team_member' ? findMember(this.deps.db, member.tenantId, claims.actor.id) : null,
    ]);
    if (!tenant) throw new Error(`tenant ${member.tenantId} of member ${member.id} vanished`);
    return { organizationName: tenant.name, orgRole: member.orgRole, invitedBy: inviter?.name ?? null };
  }

  /** Newest first, by insertion order; the cursor is the position of the last item returned. */
  async list(tenantId: string, query: TeamMemberQuery): Promise<Page<TeamMember>> {
    const cursor = decodeCursor(query.cursor, { seq: cursorFields.seq });
    const rows = await listMembers(this.deps.db, tenantId, {
      beforeSeq: cursor?.seq,
      limit: query.limit,
      orgRole: query.orgRole,
      status: query.status,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      data: page.map(({ seq: _seq, ...member }) => member),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null,
    };
  }

  names(tenantId: string, ids: readonly string[]): Promise<MemberName[]> {
    return memberNames(this.deps.db, tenantId, ids);
  }

  async get(tenantId: string, memberId: string): Promise<TeamMember> {
    const member = await findMember(this.deps.db, tenantId, memberId);
    if (!member) throw memberNotFound();
    return member;
  }

  /**
   * Changes the role and/or status. A change that would leave the tenant without an active
   * org-admin is refused; a deactivated member's sessions end with it.
   */
  async update(claims: InternalClaims, tenantId: string, memberId: string, body: UpdateTeamMemberBody): Promise<TeamMember> {
    return this.deps.db.transaction(async (tx) => {
      await lockTenantAdmins(tx, tenantId);
      const current = await lockMember(tx, tenantId, memberId);
      if (!current) throw memberNotFound();
      requireCoversRole(claims, current.orgRole, `change a member who is ${current.orgRole}`);
      if (body.orgRole !== undefined) requireCoversRole(claims, body.orgRole, `make a member ${body.orgRole}`);

      const roleChanges = body.orgRole !== undefined && body.orgRole !== current.orgRole;
      const deactivates = body.status === 'deactivated' && current.status !== 'deactivated';
      const reactivates = body.status === 'active' && current.status === 'deactivated';
      const losesActiveAdmin = current.orgRole === 'org-admin' && current.status === 'active' && (roleChanges || deactivates);
      if (losesActiveAdmin && (await countOtherActiveAdmins(tx, tenantId, current.id)) === 0) {
        throw new AppError('LAST_ORG_ADMIN', 'This is the last active org-admin of the organization: make another member org-admin first');
      }
      if (!roleChanges && !deactivates && !reactivates) return current;

      const updated = await updateMember(tx, current.id, {
        orgRole: roleChanges ? body.orgRole : undefined,
        status: deactivates ? 'deactivated' : reactivates ? 'active' : undefined,
      });
      const event = (action: string, metadata: Record<string, unknown>) => memberEvent(claims, tenantId, current.id, action, metadata);
      const events: NewAuditEvent[] = [];
      if (roleChanges)
        events.push(event('team_member.role_changed', { before: { orgRole: current.orgRole }, after: { orgRole: updated.orgRole } }));
      if (deactivates) {
        const revokedSessions = await this.deps.sessions.revokeAllOf(tx, current.id);
        events.push(event('team_member.deactivated', { before: { status: current.status }, revokedSessions }));
      }
      if (reactivates) events.push(event('team_member.reactivated', { after: { status: updated.status } }));
      await recordAuditEvents(tx, events);
      return updated;
    });
  }

  /** For maker-checker checks in other services; a member that is not active can exercise no scope. */
  async principal(tenantId: string, memberId: string): Promise<MemberPrincipal> {
    const member = await findMember(this.deps.db, tenantId, memberId);
    if (!member) throw memberNotFound();
    return {
      id: member.id,
      tenantId: member.tenantId,
      orgRole: member.orgRole,
      status: member.status,
      scopes: member.status === 'active' ? scopesOfRole(member.orgRole) : [],
    };
  }
}
