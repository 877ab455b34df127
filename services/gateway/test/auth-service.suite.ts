import type { RouteContract } from '@wallet/contracts';
import { AppError } from '@wallet/kit';
import { z } from 'zod';
import { createAuthService } from '../src/features/auth/auth-service';
import type { Authenticator, IncomingCall, Principal } from '../src/features/auth/principal';

const success = { status: 200, schema: z.unknown() };

function call(body = '', headers: Record<string, string> = {}): IncomingCall {
  return {
    method: 'POST',
    pathWithQuery: '/v1/x',
    header: (name) => headers[name.toLowerCase()],
    rawBody: Buffer.from(body),
    remoteAddress: '127.0.0.1',
  };
}

function tenant(scopes: string[], actor: Principal['actor'] = null): Authenticator {
  return async () => ({ surface: 'tenant', authMode: 'secret', tenantId: 'tn_1', environment: 'test', keyId: 'ak_1', scopes, actor });
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

describe('the authorization of a route', () => {
  const scoped: RouteContract = {
    method: 'post',
    path: '/v1/x',
    summary: 'x',
    surface: 'tenant',
    service: 'payments',
    scope: 'payouts:approve',
    success,
  };

  it('refuses a tenant route that declares no scope, whatever the caller holds', async () => {
    const unscoped = {
      method: 'get',
      path: '/v1/x',
      summary: 'x',
      surface: 'tenant',
      service: 'payments',
      success,
    } as unknown as RouteContract;
    const auth = createAuthService({ system: [], tenant: [tenant(['tenant:manage'])] });
    expect(await codeOf(auth.authorize(unscoped, call()))).toBe('INSUFFICIENT_SCOPE');
  });

  it('lets a public route through without any credential, as nobody', async () => {
    const open: RouteContract = { method: 'post', path: '/v1/auth/login', summary: 'x', surface: 'public', service: 'identity', success };
    const auth = createAuthService({ system: [], tenant: [] });
    await expect(auth.authorize(open, call())).resolves.toMatchObject({ surface: 'public', tenantId: null, scopes: [], keyId: null });
  });

  it('names the missing scope', async () => {
    const auth = createAuthService({ system: [], tenant: [tenant(['payouts:read'])] });
    await expect(auth.authorize(scoped, call())).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      details: { requiredScope: 'payouts:approve' },
    });
  });

  it('binds a body actorId or requestedBy to the declared actor', async () => {
    const auth = createAuthService({ system: [], tenant: [tenant(['payouts:approve'], { type: 'team_member', id: 'usr_a' })] });
    await expect(auth.authorize(scoped, call('{"actorId":"usr_a"}'))).resolves.toMatchObject({ actor: { id: 'usr_a' } });
    expect(await codeOf(auth.authorize(scoped, call('{"actorId":"usr_b"}')))).toBe('ACTOR_MISMATCH');
    expect(await codeOf(auth.authorize(scoped, call('{"requestedBy":"usr_b","amount":1}')))).toBe('ACTOR_MISMATCH');
    await expect(auth.authorize(scoped, call('{"amount":1}'))).resolves.toBeDefined();
  });

  it('leaves the body actor to the service when the caller declared none', async () => {
    const auth = createAuthService({ system: [], tenant: [tenant(['payouts:approve'])] });
    await expect(auth.authorize(scoped, call('{"actorId":"usr_b"}'))).resolves.toMatchObject({ actor: null });
  });
});
