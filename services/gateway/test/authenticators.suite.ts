import { randomUUID } from 'node:crypto';
import { AppError } from '@wallet/kit';
import { authenticate, type CredentialGrant, systemKeyAuthenticator, tenantAuthenticators } from '../src/features/auth/authenticators';
import type { IncomingCall } from '../src/features/auth/principal';

const SYSTEM_KEY = 'sys_unit_tests_0123456789abcdefghijklmnop';

function call(headers: Record<string, string>): IncomingCall {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    method: 'GET',
    pathWithQuery: '/v1/journal',
    header: (name) => lower[name.toLowerCase()] || undefined,
    rawBody: Buffer.alloc(0),
    remoteAddress: '127.0.0.1',
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  throw new Error('expected an AppError');
}

const grant: CredentialGrant = { tenantId: 'tn_1', environment: 'live', keyId: 'ak_1', scopes: ['wallets:read'] };

describe('the tenant authenticator chain', () => {
  it('answers MISSING_CREDENTIALS when no scheme is used', async () => {
    expect(await codeOf(authenticate(tenantAuthenticators(), call({})))).toBe('MISSING_CREDENTIALS');
    expect(await codeOf(authenticate(tenantAuthenticators(), call({ Authorization: 'Basic dXNlcjpwdw==' })))).toBe('MISSING_CREDENTIALS');
  });

  it('answers INVALID_API_KEY for a secret key no store knows', async () => {
    expect(await codeOf(authenticate(tenantAuthenticators(), call({ 'X-API-Key': 'sk_test_unknown' })))).toBe('INVALID_API_KEY');
  });

  it('answers INVALID_SESSION for a bearer token no store knows', async () => {
    expect(await codeOf(authenticate(tenantAuthenticators(), call({ Authorization: 'Bearer abc' })))).toBe('INVALID_SESSION');
  });

  it('takes a signed request first, even alongside an API key', async () => {
    const chain = tenantAuthenticators({ secretKey: async () => grant });
    expect(await codeOf(authenticate(chain, call({ 'X-Service-Key-Id': 'ak_1', 'X-API-Key': 'sk_test_known' })))).toBe(
      'MISSING_REQUEST_SIGNATURE_HEADER',
    );
  });

  it('answers INVALID_API_KEY for a complete signed request of an unknown key', async () => {
    const headers = {
      'X-Service-Key-Id': 'ak_1',
      'X-Service-Timestamp': 't',
      'X-Service-Nonce': 'a-nonce-of-enough-characters',
      'X-Service-Content-SHA256': 'h',
      'X-Service-Signature': 's',
    };
    expect(await codeOf(authenticate(tenantAuthenticators(), call(headers)))).toBe('INVALID_API_KEY');
  });

  it('refuses a nonce that is plainly not random with INVALID_REQUEST_NONCE, saying what is accepted, before any key lookup', async () => {
    const lookups: string[] = [];
    const chain = tenantAuthenticators({
      signedRequest: async (_call, headers) => {
        lookups.push(headers.nonce);
        return grant;
      },
    });
    const otherHeaders = { 'X-Service-Key-Id': 'ak_1', 'X-Service-Timestamp': 't', 'X-Service-Content-SHA256': 'h' };
    const signed = (nonce: string) => call({ ...otherHeaders, 'X-Service-Signature': 's', 'X-Service-Nonce': nonce });
    for (const nonce of ['a'.repeat(22), 'ab'.repeat(11), 'abcdefghijklmnopqrstuvwxyz', '00000000-0000-0000-0000-000000000000']) {
      const refusal = await authenticate(chain, signed(nonce)).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(AppError);
      expect(refusal).toMatchObject({ code: 'INVALID_REQUEST_NONCE', details: { header: 'x-service-nonce' } });
      expect((refusal as AppError).message).toMatch(/at least 6 different characters.*random UUID/);
    }
    expect(lookups).toEqual([]);
    expect(await authenticate(chain, signed(randomUUID()))).toMatchObject({ authMode: 'hmac', requestSignatureVerified: true });
  });

  it('builds a tenant principal from a known key, the actor from both actor headers', async () => {
    const chain = tenantAuthenticators({ secretKey: async (secret) => (secret === 'sk_live_known' ? grant : null) });
    const withActor = await authenticate(
      chain,
      call({ 'X-API-Key': 'sk_live_known', 'X-Service-Actor-Type': 'team_member', 'X-Service-Actor-Id': 'usr_1' }),
    );
    expect(withActor).toEqual({
      surface: 'tenant',
      authMode: 'secret',
      tenantId: 'tn_1',
      environment: 'live',
      keyId: 'ak_1',
      scopes: ['wallets:read'],
      actor: { type: 'team_member', id: 'usr_1' },
    });
    const halfActor = await authenticate(chain, call({ 'X-API-Key': 'sk_live_known', 'X-Service-Actor-Type': 'team_member' }));
    expect(halfActor.actor).toBeNull();
  });

  it('makes a session its member: matching actor headers pass, others are ACTOR_MISMATCH', async () => {
    const chain = tenantAuthenticators({ session: async () => ({ ...grant, keyId: null, actor: { type: 'team_member', id: 'usr_me' } }) });
    const same = await authenticate(
      chain,
      call({ Authorization: 'Bearer live', 'X-Service-Actor-Type': 'team_member', 'X-Service-Actor-Id': 'usr_me' }),
    );
    expect(same).toMatchObject({ authMode: 'session', keyId: null, actor: { type: 'team_member', id: 'usr_me' } });
    const none = await authenticate(chain, call({ Authorization: 'Bearer live' }));
    expect(none.actor).toEqual({ type: 'team_member', id: 'usr_me' });
    expect(
      await codeOf(
        authenticate(
          chain,
          call({ Authorization: 'Bearer live', 'X-Service-Actor-Type': 'team_member', 'X-Service-Actor-Id': 'usr_other' }),
        ),
      ),
    ).toBe('ACTOR_MISMATCH');
  });

  it('ignores the system key', async () => {
    expect(await codeOf(authenticate(tenantAuthenticators(), call({ 'X-System-Key': SYSTEM_KEY })))).toBe('MISSING_CREDENTIALS');
  });
});

describe('the system key authenticator', () => {
  const chain = [systemKeyAuthenticator(SYSTEM_KEY)];

  it('returns the system principal for the right key', async () => {
    expect(await authenticate(chain, call({ 'X-System-Key': SYSTEM_KEY }))).toEqual({
      surface: 'system',
      authMode: 'system',
      tenantId: null,
      environment: null,
      keyId: null,
      scopes: ['*'],
      actor: null,
    });
  });

  it('answers MISSING_CREDENTIALS without the header and INVALID_SYSTEM_KEY for a wrong key', async () => {
    expect(await codeOf(authenticate(chain, call({})))).toBe('MISSING_CREDENTIALS');
    expect(await codeOf(authenticate(chain, call({ 'X-System-Key': `${SYSTEM_KEY}-` })))).toBe('INVALID_SYSTEM_KEY');
    expect(await codeOf(authenticate(chain, call({ 'X-System-Key': SYSTEM_KEY.toUpperCase() })))).toBe('INVALID_SYSTEM_KEY');
  });

  it('ignores tenant credentials', async () => {
    expect(await codeOf(authenticate(chain, call({ 'X-API-Key': 'sk_test_x' })))).toBe('MISSING_CREDENTIALS');
  });
});
