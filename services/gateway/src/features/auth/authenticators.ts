import { constantTimeEqual, type Environment, isAcceptableRequestNonce, REQUEST_NONCE_RULE, SIGNING_HEADERS } from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import { type Authenticator, type AuthMode, type IncomingCall, type Principal, SYSTEM_PRINCIPAL } from './principal';

/** What a credential store says about a credential it recognises. */
export interface CredentialGrant {
  tenantId: string;
  environment: Environment;
  keyId: string | null;
  scopes: string[];
  /** A session is its team member; keys name their actor per request in headers instead. */
  actor?: { type: string; id: string } | null;
}

/** Looks a secret key up; null when no key has this secret. Throws for revoked or expired keys. */
export type SecretKeyResolver = (secret: string, call: IncomingCall) => Promise<CredentialGrant | null>;
/** Verifies a signed request whose five headers are all present; null when the key is unknown, throws when any check fails. */
export type SignedRequestResolver = (call: IncomingCall, headers: SignedRequestHeaders) => Promise<CredentialGrant | null>;
/** Looks a dashboard session token up; null when there is no live session with it. */
export type SessionResolver = (token: string, call: IncomingCall) => Promise<CredentialGrant | null>;

export interface SignedRequestHeaders {
  keyId: string;
  timestamp: string;
  nonce: string;
  contentSha256: string;
  signature: string;
}

export interface CredentialResolvers {
  signedRequest?: SignedRequestResolver;
  secretKey?: SecretKeyResolver;
  session?: SessionResolver;
}

/** What a chain without a store knows: every credential is unknown (sessions, until a store exists). */
const knowsNoCredentials = async (): Promise<null> => null;

/** Both actor headers, or none: half an actor context names nobody. */
export function actorFromHeaders(call: IncomingCall): { type: string; id: string } | null {
  const type = call.header(SIGNING_HEADERS.actorType);
  const id = call.header(SIGNING_HEADERS.actorId);
  return type && id ? { type, id } : null;
}

function tenantPrincipal(grant: CredentialGrant, authMode: AuthMode, call: IncomingCall): Principal {
  return {
    surface: 'tenant',
    authMode,
    tenantId: grant.tenantId,
    environment: grant.environment,
    keyId: grant.keyId,
    scopes: [...grant.scopes],
    actor: grant.actor ?? actorFromHeaders(call),
  };
}

/** `X-Service-Key-Id` present means a signed request (docs/decisions/authentication.md, "Which scheme"). */
export function signedRequestAuthenticator(resolve: SignedRequestResolver = knowsNoCredentials): Authenticator {
  return async (call) => {
    const keyId = call.header(SIGNING_HEADERS.keyId);
    if (!keyId) return null;
    const headers: SignedRequestHeaders = {
      keyId,
      timestamp: call.header(SIGNING_HEADERS.timestamp) ?? '',
      nonce: call.header(SIGNING_HEADERS.nonce) ?? '',
      contentSha256: call.header(SIGNING_HEADERS.contentSha256) ?? '',
      signature: call.header(SIGNING_HEADERS.signature) ?? '',
    };
    const missing = (Object.keys(headers) as Array<keyof SignedRequestHeaders>).find((name) => headers[name] === '');
    if (missing) {
      throw new AppError('MISSING_REQUEST_SIGNATURE_HEADER', `Signed requests need the ${SIGNING_HEADERS[missing]} header`, {
        header: SIGNING_HEADERS[missing],
      });
    }
    if (!isAcceptableRequestNonce(headers.nonce)) {
      const header = SIGNING_HEADERS.nonce;
      throw new AppError('INVALID_REQUEST_NONCE', `${header} must be ${REQUEST_NONCE_RULE}`, { header });
    }
    const grant = await resolve(call, headers);
    if (!grant) throw new AppError('INVALID_API_KEY', 'Unknown API key');
    return { ...tenantPrincipal(grant, 'hmac', call), requestSignatureVerified: true };
  };
}

export function secretKeyAuthenticator(resolve: SecretKeyResolver = knowsNoCredentials): Authenticator {
  return async (call) => {
    const secret = call.header('x-api-key');
    if (!secret) return null;
    const grant = await resolve(secret, call);
    if (!grant) throw new AppError('INVALID_API_KEY', 'Unknown API key');
    return tenantPrincipal(grant, 'secret', call);
  };
}

/** `Authorization: Bearer <session token>` from the dashboard; other schemes are not ours. */
export function sessionAuthenticator(resolve: SessionResolver = knowsNoCredentials): Authenticator {
  return async (call) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(call.header('authorization') ?? '');
    const token = match?.[1];
    if (!token) return null;
    const grant = await resolve(token, call);
    if (!grant) throw new AppError('INVALID_SESSION', 'The session is unknown or has expired');
    // A session is its member: actor headers may only repeat who that is.
    const declared = actorFromHeaders(call);
    if (declared && grant.actor && (declared.type !== grant.actor.type || declared.id !== grant.actor.id)) {
      throw new AppError('ACTOR_MISMATCH', 'A session acts as its own team member', { actorId: grant.actor.id });
    }
    return tenantPrincipal(grant, 'session', call);
  };
}

/** Tenant routes, in the precedence of docs/decisions/authentication.md: signed, then secret key, then session. */
export function tenantAuthenticators(resolvers: CredentialResolvers = {}): Authenticator[] {
  return [
    signedRequestAuthenticator(resolvers.signedRequest),
    secretKeyAuthenticator(resolvers.secretKey),
    sessionAuthenticator(resolvers.session),
  ];
}

/** System routes: `X-System-Key`, compared in constant time with the configured key. */
export function systemKeyAuthenticator(systemKey: string): Authenticator {
  return async (call) => {
    const given = call.header('x-system-key');
    if (!given) return null;
    if (!constantTimeEqual(given, systemKey)) throw new AppError('INVALID_SYSTEM_KEY', 'The system key is not valid');
    return { ...SYSTEM_PRINCIPAL, scopes: [...SYSTEM_PRINCIPAL.scopes] };
  };
}

/** Runs the chain: the first scheme the request uses decides; none at all is MISSING_CREDENTIALS. */
export async function authenticate(chain: readonly Authenticator[], call: IncomingCall): Promise<Principal> {
  for (const authenticator of chain) {
    const principal = await authenticator(call);
    if (principal) return principal;
  }
  throw new AppError('MISSING_CREDENTIALS', 'This route needs credentials');
}
