import { hasScope, type MemberPrincipal, memberPrincipalSchema } from '@wallet/contracts';
import { AppError, callInternal, type InternalPeer, type Logger, SYSTEM_CALL_CLAIMS } from '@wallet/kit';

const UNAVAILABLE = 'Team members cannot be read right now; retry shortly';

/**
 * Team members as identity sees them now (`GET /internal/v1/tenants/{tenantId}/members/{memberId}`,
 * system token): status, role and the scopes the role grants. Not cached: a member deactivated
 * or demoted a moment ago must not still approve. Shared by every maker-checker feature.
 */
export class MemberDirectory {
  private readonly identity: InternalPeer;

  constructor(private readonly options: { identityUrl: string; internalTokenSecret: string; timeoutMs: number; logger: Logger }) {
    this.identity = {
      name: 'identity',
      baseUrl: options.identityUrl,
      internalTokenSecret: options.internalTokenSecret,
      timeoutMs: options.timeoutMs,
      logger: options.logger,
      unavailableMessage: UNAVAILABLE,
    };
  }

  /** The member, or null when the tenant has no such member. 503 when identity cannot answer. */
  async memberOf(tenantId: string, memberId: string): Promise<MemberPrincipal | null> {
    const pathWithQuery = `/internal/v1/tenants/${encodeURIComponent(tenantId)}/members/${encodeURIComponent(memberId)}`;
    const answer = await callInternal(this.identity, { method: 'GET', pathWithQuery, claims: SYSTEM_CALL_CLAIMS });
    if (answer.status === 404) return null;
    if (answer.status !== 200) {
      this.options.logger.warn({ status: answer.status, tenantId }, 'identity refused the member lookup');
      throw new AppError('SERVICE_UNAVAILABLE', UNAVAILABLE, { dependency: 'identity' });
    }
    const parsed = memberPrincipalSchema.safeParse(answer.body);
    if (!parsed.success) throw new Error(`identity answered a member in an unexpected shape: ${parsed.error.message}`);
    if (parsed.data.tenantId !== tenantId) throw new Error(`identity answered member ${memberId} of another tenant`);
    return parsed.data;
  }
}

/**
 * Maker-checker's rule for who may act (docs/decisions/maker-checker.md): an active member of the tenant
 * whose role grants `scope`; anyone else is 403 ACTOR_NOT_PERMITTED.
 */
export async function requirePermittedMember(
  members: Pick<MemberDirectory, 'memberOf'>,
  tenantId: string,
  memberId: string,
  scope: string,
): Promise<MemberPrincipal> {
  const member = await members.memberOf(tenantId, memberId);
  if (!member || member.status !== 'active' || !hasScope(member.scopes, scope)) {
    throw new AppError('ACTOR_NOT_PERMITTED', `Member ${memberId} may not do this: an active member whose role grants ${scope} is needed`, {
      actorId: memberId,
      requiredScope: scope,
    });
  }
  return member;
}
