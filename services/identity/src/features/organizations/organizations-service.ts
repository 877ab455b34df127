import {
  type CreateOrganizationBody,
  newId,
  type Organization,
  type Page,
  type PageQuery,
  type UpdateOrganizationBody,
} from '@wallet/contracts';
import { AppError, cursorFields, type Db, decodeCursor, encodeCursor, type InternalClaims } from '@wallet/kit';
import { auditActorFields, recordAuditEvents } from '../audit/audit-trail';
import { newInviteToken } from '../team/invite-tokens';
import type { MemberInvites } from '../team/member-invites';
import { firstAdminsOf, insertInvitedMember } from '../team/team-members';
import { type TenantChange, type TenantsService, withoutSeq } from '../tenants/tenants-service';
import { findTenant, listTenants } from '../tenants/tenant-lookup';

export interface OrganizationsDeps {
  db: Db;
  tenants: TenantsService;
  /** The team's invites: the first admin is invited as any member is, by the platform rather than a person. */
  invites: MemberInvites;
}

/** An organization is a tenant as the platform operator sees it, with its first admin. */
export class OrganizationsService {
  constructor(private readonly deps: OrganizationsDeps) {}

  async create(body: CreateOrganizationBody): Promise<Organization> {
    const { admin: adminInput, ...tenantBody } = body;
    const invite = adminInput ? newInviteToken() : null;
    const { tenant, extra: admin } = await this.deps.tenants.createWith(tenantBody, async (tx, created) => {
      if (!adminInput || !invite) return null;
      const member = await insertInvitedMember(tx, {
        id: newId('user'),
        tenantId: created.id,
        name: adminInput.name,
        email: adminInput.email,
        orgRole: 'org-admin',
        inviteTokenHash: invite.tokenHash,
        inviteExpiresAt: invite.expiresAt,
      });
      // A brand-new tenant has no members, so this is a programmer error, not a client one.
      if (!member) throw new Error(`tenant ${created.id} already had a member with the admin's email`);
      return member;
    });
    if (!admin || !invite) return { ...tenant, admin: null };
    // The platform operator hands no link over: only whether the email went out is answered.
    const { inviteEmailSent } = await this.deps.invites.deliver(admin, invite, {
      organizationName: tenant.name,
      orgRole: admin.orgRole,
      invitedBy: null,
    });
    return { ...tenant, admin: { ...admin, inviteEmailSent } };
  }

  /** The change and its `tenant.updated` audit record (what changed, before and after) commit together. */
  async update(id: string, body: UpdateOrganizationBody, claims: InternalClaims): Promise<Organization> {
    const actor = auditActorFields(claims);
    const tenant = await this.deps.tenants.update(id, body, async (tx, change) => {
      await recordAuditEvents(tx, [
        {
          tenantId: id,
          // The configuration is tenant-wide: the trail shows the change from both environments.
          environment: null,
          action: 'tenant.updated',
          actorType: actor.actorType,
          actorId: actor.actorId,
          targetType: 'tenant',
          targetId: id,
          metadata: { ...actor.metadata, ...changedFields(change) },
        },
      ]);
    });
    const admins = await firstAdminsOf(this.deps.db, [tenant.id]);
    return { ...tenant, admin: admins.get(tenant.id) ?? null };
  }

  async get(id: string): Promise<Organization> {
    const stored = await findTenant(this.deps.db, id);
    if (!stored) throw new AppError('TENANT_NOT_FOUND', 'No such organization');
    const admins = await firstAdminsOf(this.deps.db, [stored.id]);
    return { ...withoutSeq(stored), admin: admins.get(stored.id) ?? null };
  }

  /** Newest first, by insertion order; the cursor is the position of the last item returned. */
  async list(query: PageQuery): Promise<Page<Organization>> {
    const cursor = decodeCursor(query.cursor, { seq: cursorFields.seq });
    const rows = await listTenants(this.deps.db, { beforeSeq: cursor?.seq, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const admins = await firstAdminsOf(
      this.deps.db,
      page.map((tenant) => tenant.id),
    );
    const last = page[page.length - 1];
    return {
      data: page.map((tenant) => ({ ...withoutSeq(tenant), admin: admins.get(tenant.id) ?? null })),
      nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null,
    };
  }
}

/** Only the fields that changed, before and after, so the trail says what happened at a glance. */
function changedFields({ before, after }: TenantChange): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const was: Record<string, unknown> = {};
  const now: Record<string, unknown> = {};
  if (before.name !== after.name) {
    was.name = before.name;
    now.name = after.name;
  }
  for (const field of ['defaultCurrency', 'allowedCurrencies', 'maxTransactionAmount'] as const) {
    if (JSON.stringify(before.config[field]) === JSON.stringify(after.config[field])) continue;
    was[`config.${field}`] = before.config[field];
    now[`config.${field}`] = after.config[field];
  }
  return { before: was, after: now };
}
