import type { Environment } from '@wallet/contracts';

export type AuthMode = 'system' | 'secret' | 'hmac' | 'session' | 'none';

/** Who is calling, once a credential checked out. Becomes the claims of the internal token. */
export interface Principal {
  surface: 'system' | 'tenant' | 'public';
  authMode: AuthMode;
  tenantId: string | null;
  environment: Environment | null;
  keyId: string | null;
  scopes: string[];
  actor: { type: string; id: string } | null;
  /** Set on signed requests whose signature verified; kept for the request logs. */
  requestSignatureVerified?: true;
}

/**
 * What an authenticator sees of a request. Framework-free on purpose: authenticators are unit
 * tested without HTTP, and signed requests need the raw body and the path exactly as received.
 */
export interface IncomingCall {
  method: string;
  /** Path plus `?query` exactly as received, percent-encoding kept. */
  pathWithQuery: string;
  /** A header's value; an empty value counts as absent. */
  header(name: string): string | undefined;
  rawBody: Buffer;
  remoteAddress: string | undefined;
}

/**
 * One credential scheme. Returns null when the request does not use this scheme (the next one
 * in the chain gets a turn); throws an AppError when it does but the credential is bad.
 */
export type Authenticator = (call: IncomingCall) => Promise<Principal | null>;

/** The platform operator: no tenant, every scope. */
export const SYSTEM_PRINCIPAL: Readonly<Principal> = Object.freeze({
  surface: 'system',
  authMode: 'system',
  tenantId: null,
  environment: null,
  keyId: null,
  scopes: ['*'],
  actor: null,
});
