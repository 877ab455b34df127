import { ORG_ROLES, ROLE_SCOPES, ROUTES, type RouteContract, SCOPES } from '@wallet/contracts';
import type { Authenticator } from '../src/features/auth/principal';
import {
  gatewayEnv,
  type GatewayClient,
  prepareGatewayInfrastructure,
  read,
  startGateway,
  startUpstreamPeer,
  SYSTEM_KEY,
  type UpstreamPeer,
} from './support';

/**
 * The scope table of docs/decisions/scopes.md, written out route by route and kept apart from
 * the code under test: the gateway must agree with it for every route, every scope and every
 * role. A tenant route missing here fails the test, so no route ships without a decision. Its
 * replay column (a remembered answer replayed to other callers) needs the services behind the
 * gateway: test/security/idempotency-replay.suite.ts.
 */
const DECIDED_SCOPE: Record<string, string> = {
  'GET /v1/wallets': 'wallets:read',
  'GET /v1/wallets/{id}': 'wallets:read',
  'GET /v1/wallets/{id}/entries': 'wallets:read',
  'GET /v1/wallets/{id}/balance': 'wallets:read',
  'GET /v1/deposits': 'wallets:read',
  'GET /v1/deposits/{id}': 'wallets:read',
  'GET /v1/transfers': 'wallets:read',
  'GET /v1/transfers/{id}': 'wallets:read',
  'GET /v1/transfers/{id}/reversals': 'wallets:read',
  'POST /v1/wallets': 'wallets:create',
  'POST /v1/wallets/{id}/freeze': 'wallets:manage',
  'POST /v1/wallets/{id}/unfreeze': 'wallets:manage',
  'POST /v1/transfers': 'transfers:create',
  'POST /v1/transfers/{id}/reversals': 'transfers:create',
  'POST /v1/deposits/bank-slips': 'wallet:deposit',
  'POST /v1/bank-statements': 'deposits:verify',
  'GET /v1/bank-statements/lines': 'wallets:read',
  'POST /v1/deposits/{id}/verify': 'deposits:verify',
  'POST /v1/deposits/{id}/reopen': 'deposits:verify',
  'POST /v1/payouts': 'payouts:create',
  'GET /v1/payouts/cases': 'payouts:read',
  'GET /v1/payouts/cases/{id}': 'payouts:read',
  'POST /v1/payouts/{id}/approve': 'payouts:approve',
  'POST /v1/payouts/{id}/reject': 'payouts:approve',
  'GET /v1/approval-policies/payouts': 'payouts:read',
  'PUT /v1/approval-policies/payouts': 'tenant:manage',
  'GET /v1/admin/money/balances': 'treasury:read',
  'GET /v1/admin/money/float-deposits': 'treasury:read',
  'GET /v1/admin/money/float-deposits/{id}': 'treasury:read',
  'GET /v1/admin/money/withdrawals': 'treasury:read',
  'GET /v1/admin/money/withdrawals/{id}': 'treasury:read',
  'POST /v1/admin/money/float-deposits': 'treasury:write',
  'POST /v1/admin/money/withdrawals': 'treasury:write',
  'POST /v1/admin/money/withdrawals/{id}/approve': 'treasury:approve',
  'POST /v1/admin/money/withdrawals/{id}/reject': 'treasury:approve',
  'GET /v1/approval-policies/withdrawals': 'treasury:read',
  'PUT /v1/approval-policies/withdrawals': 'tenant:manage',
  'GET /v1/admin/fee-schedules': 'fees:read',
  'GET /v1/admin/fee-schedules/{id}': 'fees:read',
  'POST /v1/admin/fee-schedules': 'fees:manage',
  'POST /v1/admin/fee-schedules/{id}/rules': 'fees:manage',
  'POST /v1/admin/fee-schedules/{id}/publish': 'fees:manage',
  'DELETE /v1/admin/fee-schedules/{id}/rules/{id}': 'fees:manage',
  'GET /v1/fees/quote': 'fees:read',
  'GET /v1/exports/transfers': 'wallets:read',
  'GET /v1/exports/deposits': 'wallets:read',
  'GET /v1/exports/wallets': 'wallets:read',
  'GET /v1/exports/payouts': 'payouts:read',
  'GET /v1/exports/withdrawals': 'treasury:read',
  'GET /v1/exports/float-deposits': 'treasury:read',
  'GET /v1/admin/analytics': 'analytics:read',
  'GET /v1/admin/reconciliation': 'analytics:read',
  'POST /v1/reconciliation/matches': 'deposits:verify',
  'GET /v1/reconciliation/matches': 'wallets:read',
  'POST /v1/reconciliation/matches/{id}/approve': 'deposits:verify',
  'POST /v1/reconciliation/matches/{id}/reject': 'deposits:verify',
  'GET /v1/reconciliation/suggestions': 'wallets:read',
  'GET /v1/reconciliation/match-rule': 'wallets:read',
  'PUT /v1/reconciliation/match-rule': 'tenant:manage',
  'POST /v1/admin/reconciliation/runs': 'tenant:manage',
  'GET /v1/admin/reconciliation/runs/{id}': 'analytics:read',
  'GET /v1/ledger/reconciliation': 'analytics:read',
  'GET /v1/developer/request-logs': 'request_logs:read',
  'GET /v1/developer/api-keys': 'api_keys:manage',
  'GET /v1/developer/api-keys/{id}': 'api_keys:manage',
  'POST /v1/developer/api-keys': 'api_keys:manage',
  'PATCH /v1/developer/api-keys/{id}': 'api_keys:manage',
  'POST /v1/developer/api-keys/{id}/rotate': 'api_keys:manage',
  'POST /v1/developer/api-keys/{id}/revoke': 'api_keys:manage',
  'GET /v1/admin/momo-providers': 'providers:manage',
  'GET /v1/admin/momo-providers/{id}': 'providers:manage',
  'POST /v1/admin/momo-providers': 'providers:manage',
  'POST /v1/admin/momo-providers/{id}/rotate-secret': 'providers:manage',
  'GET /v1/team': 'team:manage',
  'GET /v1/team/names': 'team:read',
  'GET /v1/team/{id}': 'team:manage',
  'POST /v1/team': 'team:manage',
  'POST /v1/team/invites': 'team:manage',
  'POST /v1/team/{id}/invite': 'team:manage',
  'PATCH /v1/team/{id}': 'team:manage',
  'GET /v1/team/audit-events': 'audit:read',
  'GET /v1/journal': 'journal:read',
  'GET /v1/journal/{id}': 'journal:read',
  'GET /v1/ledger/accounts': 'journal:read',
  'GET /v1/ledger/wallets/{id}/entries': 'journal:read',
  'GET /v1/events': 'events:read',
  'GET /v1/events/{id}': 'events:read',
  'GET /v1/developer/webhook-endpoints': 'webhooks:manage',
  'GET /v1/developer/webhook-endpoints/{id}': 'webhooks:manage',
  'POST /v1/developer/webhook-endpoints': 'webhooks:manage',
  'PATCH /v1/developer/webhook-endpoints/{id}': 'webhooks:manage',
  'DELETE /v1/developer/webhook-endpoints/{id}': 'webhooks:manage',
  'POST /v1/developer/webhook-endpoints/{id}/rotate-secret': 'webhooks:manage',
  'POST /v1/developer/webhook-endpoints/{id}/test': 'webhooks:manage',
  'GET /v1/developer/webhook-endpoints/{id}/deliveries': 'webhooks:manage',
  'POST /v1/developer/webhook-endpoints/{id}/replay': 'webhooks:manage',
};

/** The money-moving POSTs `ledger:write` covers, by path (section 3), not by scope name. */
const MONEY_MOVING_POSTS = new Set([
  '/v1/wallets',
  '/v1/transfers',
  '/v1/transfers/{id}/reversals',
  '/v1/deposits/bank-slips',
  '/v1/payouts',
  '/v1/admin/money/float-deposits',
  '/v1/admin/money/withdrawals',
]);

/** GETs `ledger:read` does not cover: lists of keys, team and providers are management, guarded by their `*:manage` scope. */
const MANAGEMENT_GETS = new Set(['api_keys:manage', 'team:manage', 'providers:manage', 'webhooks:manage']);

/** Team roles of section 3, written out. */
const DECIDED_ROLE_SCOPES: Record<string, string[]> = {
  'org-admin': ['tenant:manage'],
  operator: [
    'wallets:read',
    'wallets:create',
    'wallets:manage',
    'transfers:create',
    'wallet:deposit',
    'deposits:verify',
    'payouts:create',
    'payouts:read',
    'treasury:read',
    'treasury:write',
    'fees:read',
    'analytics:read',
    'journal:read',
    'team:read',
  ],
  approver: [
    'payouts:read',
    'payouts:approve',
    'treasury:read',
    'treasury:approve',
    'wallets:read',
    'analytics:read',
    'journal:read',
    'team:read',
  ],
  developer: ['api_keys:manage', 'webhooks:manage', 'events:read', 'request_logs:read', 'wallets:read', 'journal:read', 'team:read'],
  'finance-viewer': [
    'wallets:read',
    'payouts:read',
    'treasury:read',
    'fees:read',
    'analytics:read',
    'request_logs:read',
    'audit:read',
    'ledger:read',
  ],
  observer: ['wallets:read', 'payouts:read', 'treasury:read', 'analytics:read', 'team:read'],
  user: [],
};

const ALIASES: Record<string, string> = { 'wallet:transfer': 'transfers:create', 'transfers:create': 'wallet:transfer' };

function routeKey(route: RouteContract): string {
  return `${route.method.toUpperCase()} ${route.path.replace(/\{\w+\}/g, '{id}')}`;
}

function decidedScope(route: RouteContract): string {
  const scope = DECIDED_SCOPE[routeKey(route)];
  if (!scope) throw new Error(`no decided scope for ${routeKey(route)}`);
  return scope;
}

/** Allowed by the decisions, computed from the table above and never from the gateway's code. */
function decidedAllowed(granted: readonly string[], route: RouteContract): boolean {
  const required = decidedScope(route);
  return granted.some(
    (scope) =>
      scope === required ||
      ALIASES[scope] === required ||
      scope === 'tenant:manage' ||
      (scope === 'ledger:read' && route.method === 'get' && !MANAGEMENT_GETS.has(required)) ||
      (scope === 'ledger:write' && route.method === 'post' && MONEY_MOVING_POSTS.has(route.path)),
  );
}

const tenantRoutes = ROUTES.filter((route) => route.surface === 'tenant');

/** The caller's scopes come from a test header: one gateway answers for every grant. */
const scopesFromHeader: Authenticator = async (call) => ({
  surface: 'tenant',
  authMode: 'secret',
  tenantId: 'tn_matrix',
  environment: 'test',
  keyId: 'ak_matrix',
  scopes: (call.header('x-test-scopes') ?? '').split(',').filter(Boolean),
  actor: null,
});

let upstream: UpstreamPeer;
let client: GatewayClient;

beforeAll(async () => {
  await prepareGatewayInfrastructure('gateway_matrix');
  upstream = await startUpstreamPeer();
  const noLimits = {
    GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_IP_PER_SECOND: '0',
  };
  client = await startGateway(gatewayEnv({ identity: upstream.url }, noLimits), { tenantAuthenticators: [scopesFromHeader] });
});

afterAll(async () => {
  await client?.gateway.close();
  await upstream?.close();
});

async function outcome(route: RouteContract, scopes: readonly string[]): Promise<'allowed' | 'refused'> {
  const path = route.path.replace(/\{\w+\}/g, 'x_1');
  const hasBody = route.method !== 'get';
  const response = await read(
    await fetch(`${client.publicUrl}${path}`, {
      method: route.method.toUpperCase(),
      headers: { 'x-test-scopes': scopes.join(','), ...(hasBody ? { 'content-type': 'application/json' } : {}) },
      body: hasBody ? '{}' : undefined,
    }),
  );
  if (response.status === 403) {
    expect(response.body.error?.code).toBe('INSUFFICIENT_SCOPE');
    return 'refused';
  }
  expect([401, 403]).not.toContain(response.status);
  return 'allowed';
}

describe('the authorization matrix', () => {
  it('has a decided scope for every tenant route, equal to the one the route declares', () => {
    expect(tenantRoutes.length).toBeGreaterThan(0);
    for (const route of tenantRoutes) expect(`${routeKey(route)} ${route.scope}`).toBe(`${routeKey(route)} ${decidedScope(route)}`);
  });

  it('maps every team role to the scopes of the decisions', () => {
    expect(Object.keys(ROLE_SCOPES).sort()).toEqual([...ORG_ROLES].sort());
    for (const role of ORG_ROLES) expect([...ROLE_SCOPES[role]].sort()).toEqual([...(DECIDED_ROLE_SCOPES[role] ?? ['?'])].sort());
  });

  it.each(tenantRoutes.map((route) => [routeKey(route), route] as const))(
    '%s: each scope alone, and no scope, as decided',
    async (_key, route) => {
      const grants: string[][] = [[], ...SCOPES.map((scope) => [scope])];
      const seen = await Promise.all(grants.map(async (granted) => `${granted.join(',') || '(none)'}: ${await outcome(route, granted)}`));
      const expected = grants.map(
        (granted) => `${granted.join(',') || '(none)'}: ${decidedAllowed(granted, route) ? 'allowed' : 'refused'}`,
      );
      expect(seen).toEqual(expected);
    },
  );

  it.each(ORG_ROLES.map((role) => [role] as const))('role %s reaches exactly the routes the decisions give it', async (role) => {
    const scopes = DECIDED_ROLE_SCOPES[role] ?? [];
    const seen = await Promise.all(tenantRoutes.map(async (route) => `${routeKey(route)}: ${await outcome(route, scopes)}`));
    const expected = tenantRoutes.map((route) => `${routeKey(route)}: ${decidedAllowed(scopes, route) ? 'allowed' : 'refused'}`);
    expect(seen).toEqual(expected);
  });

  it('opens exactly the decided public routes to callers without credentials', async () => {
    const publicRoutes = ROUTES.filter((route) => route.surface === 'public')
      .map(routeKey)
      .sort();
    expect(publicRoutes).toEqual(
      [
        'POST /v1/auth/accept-invite',
        'POST /v1/auth/login',
        'POST /v1/auth/logout',
        ...(publicRoutes.includes('POST /v1/deposits/momo-webhook') ? ['POST /v1/deposits/momo-webhook'] : []),
      ].sort(),
    );
    for (const route of ROUTES.filter((candidate) => candidate.surface === 'public')) {
      const response = await read(
        await fetch(`${client.publicUrl}${route.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      );
      expect(`${routeKey(route)} ${response.status}`).toBe(`${routeKey(route)} 200`);
      expect(response.body.claims).toMatchObject({ surface: 'public', tenantId: null, scopes: [] });
    }
  });

  it('declares the platform view on the system surface', () => {
    const platformView = [
      'PATCH /v1/system/organizations/{id}',
      'GET /v1/system/wallets/{id}',
      'GET /v1/system/ledger/transactions',
      'GET /v1/system/ledger/transactions/{id}',
      'GET /v1/system/ledger/accounts/{id}/balance',
    ];
    const systemRoutes = ROUTES.filter((route) => route.surface === 'system').map(routeKey);
    expect(systemRoutes).toEqual(expect.arrayContaining(platformView));
  });

  it('declares reconciliation, asked now and recorded by the schedule, on the system surface', () => {
    const reconciliation = [
      'GET /v1/system/reconciliation',
      'GET /v1/system/reconciliation/runs',
      'GET /v1/system/reconciliation/runs/{id}',
    ];
    const systemRoutes = ROUTES.filter((route) => route.surface === 'system').map(routeKey);
    expect(systemRoutes).toEqual(expect.arrayContaining(reconciliation));
  });

  it('declares cross-tenant analytics on the system surface, answered by treasury', () => {
    const analytics = ROUTES.filter((route) => route.path === '/v1/system/analytics' || route.path === '/v1/admin/analytics').map(
      (route) => `${routeKey(route)} ${route.surface} ${route.service}`,
    );
    expect(analytics.sort()).toEqual(['GET /v1/admin/analytics tenant treasury', 'GET /v1/system/analytics system treasury']);
  });

  it('refuses every system route on both listeners without the system key or with a wrong one', async () => {
    const seen: string[] = [];
    const expected: string[] = [];
    for (const route of ROUTES.filter((candidate) => candidate.surface === 'system')) {
      const path = route.path.replace(/\{\w+\}/g, 'x_1');
      const hasBody = route.method !== 'get';
      for (const [listener, baseUrl] of [
        ['public', client.publicUrl],
        ['admin', client.adminUrl],
      ] as const) {
        for (const [label, key, code] of [
          ['no key', undefined, 'MISSING_CREDENTIALS'],
          ['wrong key', `${SYSTEM_KEY}x`, 'INVALID_SYSTEM_KEY'],
          ['tenant key as system key', 'sk_test_0123456789abcdefghijklmnopqrstuvwxyzABCD', 'INVALID_SYSTEM_KEY'],
        ] as const) {
          const response = await read(
            await fetch(`${baseUrl}${path}`, {
              method: route.method.toUpperCase(),
              headers: { ...(key ? { 'x-system-key': key } : {}), ...(hasBody ? { 'content-type': 'application/json' } : {}) },
              body: hasBody ? '{}' : undefined,
            }),
          );
          seen.push(`${routeKey(route)} ${listener} ${label}: ${response.status} ${response.body.error?.code}`);
          expected.push(`${routeKey(route)} ${listener} ${label}: 401 ${code}`);
        }
      }
    }
    expect(seen).toEqual(expected);
  });

  it('never opens a system route to tenant credentials', async () => {
    for (const route of ROUTES.filter((candidate) => candidate.surface === 'system')) {
      const path = route.path.replace(/\{\w+\}/g, 'x_1');
      const response = await read(
        await fetch(`${client.publicUrl}${path}`, { method: route.method.toUpperCase(), headers: { 'x-test-scopes': 'tenant:manage' } }),
      );
      expect(`${routeKey(route)} ${response.status} ${response.body.error?.code}`).toBe(`${routeKey(route)} 401 MISSING_CREDENTIALS`);
    }
  });
});
