import type { RouteContract } from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import { authenticate } from './authenticators';
import type { Authenticator, IncomingCall, Principal } from './principal';
import { hasScope } from './scopes';

export interface AuthService {
  /** Who may make this call on this route, or an AppError (401, 403) saying why not. */
  authorize(route: RouteContract, call: IncomingCall): Promise<Principal>;
}

export function createAuthService(chains: { system: readonly Authenticator[]; tenant: readonly Authenticator[] }): AuthService {
  return {
    async authorize(route, call) {
      // Each surface has its own chain: the system key opens no tenant route, a tenant key no system route.
      const principal = await authenticate(route.surface === 'system' ? chains.system : chains.tenant, call);
      if (principal.surface !== route.surface) {
        throw new Error(`an authenticator of the ${route.surface} chain returned a ${principal.surface} principal`);
      }
      if (route.surface === 'tenant' && route.scope && !hasScope(principal.scopes, route.scope)) {
        throw new AppError('INSUFFICIENT_SCOPE', `This route needs the ${route.scope} scope`, { requiredScope: route.scope });
      }
      return principal;
    },
  };
}
