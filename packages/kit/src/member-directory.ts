import { randomUUID } from 'node:crypto';
import { hasScope, type MemberPrincipal, memberPrincipalSchema } from '@wallet/contracts';
import { currentContext } from './context';
import { AppError } from './errors';
import { INTERNAL_TOKEN_HEADER, signInternalToken } from './internal-token';
import type { Logger } from './logger';

/**
 * Team members as identity sees them now (`GET /internal/v1/tenants/{tenantId}/members/{memberId}`,
 * system token): status, role and the scopes the role grants. Not cached: a member deactivated
 * or demoted a moment ago must not still approve. Shared by every maker-checker feature.
 */
export class MemberDirectory {
  constructor(private readonly options: { identityUrl: string; internalTokenSecret: string; timeoutMs: number; logger: Logger }) {}

  /** The member, or null when the tenant has no such member. 503 when identity cannot answer. */
  async memberOf(tenantId: string, memberId: string): Promise<MemberPrincipal | null> {
    const correlationId = currentContext()?.correlationId ?? randomUUID();
    const token = signInternalToken(this.options.internalTokenSecret, { surface: 'system', tenantId: null, environment: null, keyId: null, scopes: [], actor: null });
    const url = `${this.options.identityUrl.replace(/\/+$/, '')}/internal/v1/tenants/${encodeURIComponent(tenantId)}/members/${encodeURIComponent(memberId)}`;
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, { headers: { [INTERNAL_TOKEN_HEADER]: token, 'x-correlation-id': correlationId }, signal: AbortSignal.timeout(this.options.timeoutMs) });
      status = response.status;
      text = await response.text();
    } catch (error) {
      this.options.logger.warn({ err: error, tenantId }, 'identity unreachable for a member lookup');
      throw unavailable();
    }
    if (status === 404) return null;
    if (status !== 200) {
      this.options.logger.warn({ status, tenantId }, 'identity refused the member lookup');
      throw unavailable();
    }
    const parsed = memberPrincipalSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`identity answered a member in an unexpected shape: ${parsed.error.message}`);
    if (parsed.data.tenantId !== tenantId) throw new Error(`identity answered member ${memberId} of another tenant`);
    return parsed.data;
  }
}

function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'Team members cannot be read right now; retry shortly', { dependency: 'identity' });
}

/**
 * Maker-checker's rule for who may act (docs/decisions/maker-checker.md): an active member of the tenant
 * whose role grants `scope`; anyone else is 403 ACTOR_NOT_PERMITTED.
 */
export async function requirePermittedMember(members: Pick<MemberDirectory, 'memberOf'>, tenantId: string, memberId: string, scope: string): Promise<void> {
  const member = await members.memberOf(tenantId, memberId);
  if (!member || member.status !== 'active' || !hasScope(member.scopes, scope)) {
    throw new AppError('ACTOR_NOT_PERMITTED', `Member ${memberId} may not do this: an active member whose role grants ${scope} is needed`, { actorId: memberId, requiredScope: scope });
  }
}
