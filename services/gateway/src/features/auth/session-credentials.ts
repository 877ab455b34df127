import type { CredentialGrant, SessionResolver } from './authenticators';
import type { IdentityKeysClient } from './identity-keys-client';

/** Tokens identity issues are far shorter; a longer one is refused without a round trip. */
const MAX_TOKEN_LENGTH = 256;

/**
 * `Authorization: Bearer <session token>`: asked of identity on every request, never cached,
 * so a logout or a deactivated member takes effect on the very next request.
 */
export function sessionResolver(identity: Pick<IdentityKeysClient, 'authenticateSession'>): SessionResolver {
  return async (token): Promise<CredentialGrant | null> => {
    if (token.length > MAX_TOKEN_LENGTH) return null;
    const session = await identity.authenticateSession(token);
    return {
      tenantId: session.tenantId,
      environment: session.environment,
      keyId: null,
      scopes: [...session.scopes],
      actor: { type: 'team_member', id: session.memberId },
    };
  };
}
