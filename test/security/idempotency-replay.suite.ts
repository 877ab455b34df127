import { randomUUID } from 'node:crypto';
import { ROUTES, type RouteContract, type Scope } from '@wallet/contracts';
import { LedgerCommandClient } from '@wallet/money-commands';
import { WalletClient } from '@wallet/sdk';
import { type SecuritySystem, startSecuritySystem, SYSTEM_KEY } from './in-process-system';

/**
 * The authorization matrix's replay column (docs/decisions/idempotency.md): every route that
 * takes an Idempotency-Key is first called with a key K, then K and the very same bytes are sent
 * by other callers. Only the first caller gets the remembered answer; a weaker key of the tenant
 * or another member is 422 IDEMPOTENCY_KEY_REUSED (or refused before it, by the gateway), and a
 * key of another tenant or environment gets an execution of its own, never the first answer.
 */
let system: SecuritySystem;
let platform: WalletClient;
let ledger: LedgerCommandClient;

/** How a request proves who it is: API key headers, or a session's bearer token. */
type Credential = Record<string, string>;

interface Tenant {
  id: string;
  slug: string;
  root: Credential;
}

let tenantA: Tenant;
let rootInTest: Credential;
let otherTenantRoot: Credential;
let admin: { id: string; session: Credential };
let secondAdmin: { id: string; session: Credential };
let maker: { id: string };

const PASSWORD = 'a long enough password';

interface Answer {
  status: number;
  replayed: boolean;
  code: string | undefined;
  text: string;
}

async function call(
  baseUrl: string,
  credential: Credential,
  request: { path: string; body: string; key: string; actorId?: string },
): Promise<Answer> {
  const headers: Record<string, string> = { ...credential, 'content-type': 'application/json', 'idempotency-key': request.key };
  if (request.actorId) Object.assign(headers, { 'x-service-actor-type': 'team_member', 'x-service-actor-id': request.actorId });
  const response = await fetch(`${baseUrl}${request.path}`, { method: 'POST', headers, body: request.body });
  const text = await response.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true', code, text };
}

async function post<T>(credential: Credential, path: string, body: unknown): Promise<T> {
  const answer = await call(system.publicUrl, credential, { path, body: JSON.stringify(body), key: `setup-${randomUUID()}` });
  if (answer.status >= 300) throw new Error(`setup ${path}: ${answer.status} ${answer.text}`);
  return JSON.parse(answer.text) as T;
}

const keyOf = (secret: string): Credential => ({ 'x-api-key': secret });

async function tenantKey(tenantId: string, scopes: Scope[], environment: 'test' | 'live'): Promise<Credential> {
  const created = await platform.apiKeys.createForTenant(tenantId, { name: `replay ${scopes.join(' ')}`, scopes, environment });
  return keyOf(created.key as string);
}

async function newTenant(): Promise<Tenant> {
  const slug = `replay-${randomUUID().slice(0, 8)}`;
  const config = { defaultCurrency: 'KES', allowedCurrencies: ['KES'], maxTransactionAmount: '100000' };
  const { id } = await platform.system.tenants.create({ name: slug, slug, config });
  return { id, slug, root: await tenantKey(id, ['tenant:manage'], 'live') };
}

async function member(orgRole: string): Promise<{ id: string; email: string }> {
  const email = `${orgRole}-${randomUUID().slice(0, 8)}@example.com`;
  const created = await post<{ id: string }>(tenantA.root, '/v1/team', { name: orgRole, email, password: PASSWORD, orgRole });
  return { id: created.id, email };
}

async function sessionOf(email: string): Promise<Credential> {
  const answer = await fetch(`${system.publicUrl}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD, tenantSlug: tenantA.slug, environment: 'live' }),
  });
  const session = (await answer.json()) as { token?: string };
  if (!session.token) throw new Error(`login failed: ${answer.status}`);
  return { authorization: `Bearer ${session.token}` };
}

async function fundedWallet(amount: string): Promise<string> {
  const ownerId = `owner-${randomUUID()}`;
  const wallet = await post<{ id: string }>(tenantA.root, '/v1/wallets', { ownerType: 'user', ownerId, currencyCode: 'KES' });
  const posted = await ledger.request({
    type: 'ledger.post.v1',
    commandId: `replay-${randomUUID()}`,
    tenantId: tenantA.id,
    environment: 'live',
    kind: 'momo_deposit',
    reference: { type: 'deposit', id: `dep_${randomUUID().slice(0, 8)}` },
    lines: [
      { accountName: 'momo-float:mtn', direction: 'DR', amount, currencyCode: 'KES' },
      { accountName: `wallet:${ownerId}`, walletId: wallet.id, direction: 'CR', amount, currencyCode: 'KES' },
    ],
  });
  if (posted.status !== 'posted') throw new Error(`funding not posted: ${JSON.stringify(posted)}`);
  return wallet.id;
}

async function transfer(): Promise<string> {
  const to = await post<{ id: string }>(tenantA.root, '/v1/wallets', {
    ownerType: 'user',
    ownerId: `payee-${randomUUID()}`,
    currencyCode: 'KES',
  });
  const body = { fromWalletId: await fundedWallet('20.00'), toWalletId: to.id, amount: '5.00', currencyCode: 'KES' };
  return (await post<{ id: string }>(tenantA.root, '/v1/transfers', body)).id;
}

const payoutBody = async (requestedBy: string) => ({
  walletId: await fundedWallet('20.00'),
  amount: '1.00',
  currencyCode: 'KES',
  payoutMethod: 'momo',
  destination: { phoneNumber: '+254700000001', network: 'safaricom' },
  requestedBy,
});

const withdrawalBody = (requestedBy: string) => ({
  source: 'operating_float',
  amount: '1.00',
  currencyCode: 'KES',
  payoutMethod: 'cash',
  destination: { recipientName: 'Replay' },
  requestedBy,
});

/** A case the maker opened, for a decision by someone else. */
async function pendingCase(path: '/v1/payouts' | '/v1/admin/money/withdrawals'): Promise<string> {
  const body = path === '/v1/payouts' ? await payoutBody(maker.id) : withdrawalBody(maker.id);
  return (await post<{ id: string }>(tenantA.root, path, body)).id;
}

/** A pending slip of 3.00 and an unmatched line of its money under the bank's own reference: what a match pairs. */
async function slipAndLine(): Promise<{ depositId: string; statementLineId: string }> {
  const wallet = await post<{ id: string }>(tenantA.root, '/v1/wallets', {
    ownerType: 'user',
    ownerId: `m-${randomUUID()}`,
    currencyCode: 'KES',
  });
  const slip = { walletId: wallet.id, amount: '3.00', currencyCode: 'KES', bankCode: 'stanbic', slipReference: `M-${randomUUID()}` };
  const deposit = await post<{ id: string }>(tenantA.root, '/v1/deposits/bank-slips', slip);
  const reference = `BANK ${randomUUID()}`;
  const line = { date: '2026-11-30', reference, amount: '3.00' };
  await post(tenantA.root, '/v1/bank-statements', { bankCode: 'stanbic', currencyCode: 'KES', lines: [line] });
  const listed = await fetch(`${system.publicUrl}/v1/bank-statements/lines?matched=false&limit=200`, { headers: tenantA.root });
  const lines = ((await listed.json()) as { data: Array<{ id: string; reference: string }> }).data;
  const found = lines.find((each) => each.reference === reference);
  if (!found) throw new Error('setup: the imported line is not listed');
  return { depositId: deposit.id, statementLineId: found.id };
}

/** The request each route is called with, fresh for each column: `actorId` is the member it acts as. */
const REQUESTS: Record<string, (actorId: string) => Promise<{ path: string; body: unknown }>> = {
  '/v1/developer/api-keys': async () => ({
    path: '/v1/developer/api-keys',
    body: { name: 'ci deploy key', authMode: 'secret', scopes: ['tenant:manage'], environment: 'live' },
  }),
  '/v1/developer/api-keys/{id}/rotate': async () => {
    const target = await post<{ id: string }>(tenantA.root, '/v1/developer/api-keys', {
      name: 'strong',
      scopes: ['tenant:manage'],
      environment: 'live',
    });
    return { path: `/v1/developer/api-keys/${target.id}/rotate`, body: {} };
  },
  '/v1/admin/momo-providers': async () => ({
    path: '/v1/admin/momo-providers',
    body: { providerCode: `p${randomUUID().slice(0, 6)}`, name: 'Replay' },
  }),
  '/v1/admin/momo-providers/{id}/rotate-secret': async () => {
    const provider = await post<{ id: string }>(tenantA.root, '/v1/admin/momo-providers', {
      providerCode: `p${randomUUID().slice(0, 6)}`,
      name: 'P',
    });
    return { path: `/v1/admin/momo-providers/${provider.id}/rotate-secret`, body: {} };
  },
  '/v1/developer/webhook-endpoints': async () => ({
    path: '/v1/developer/webhook-endpoints',
    // A public address that nothing is delivered to: only on-demand test events are subscribed.
    body: { url: 'https://1.1.1.1/hooks', eventTypes: ['webhook_endpoint.test'] },
  }),
  '/v1/developer/webhook-endpoints/{id}/rotate-secret': async () => {
    const endpoint = await post<{ id: string }>(tenantA.root, '/v1/developer/webhook-endpoints', {
      url: 'https://1.1.1.1/hooks',
      eventTypes: ['webhook_endpoint.test'],
    });
    return { path: `/v1/developer/webhook-endpoints/${endpoint.id}/rotate-secret`, body: {} };
  },
  '/v1/team': async () => ({
    path: '/v1/team',
    body: { name: 'New admin', email: `new-${randomUUID().slice(0, 8)}@example.com`, password: PASSWORD, orgRole: 'org-admin' },
  }),
  // Without a mail server the answer holds the invite's link: a secret no replay to another caller may show.
  '/v1/team/invites': async () => ({
    path: '/v1/team/invites',
    body: { name: 'Invited admin', email: `invited-${randomUUID().slice(0, 8)}@example.com`, orgRole: 'org-admin' },
  }),
  '/v1/wallets': async () => ({ path: '/v1/wallets', body: { ownerType: 'user', ownerId: `o-${randomUUID()}`, currencyCode: 'KES' } }),
  '/v1/admin/fee-schedules': async () => ({ path: '/v1/admin/fee-schedules', body: { name: `Replay ${randomUUID().slice(0, 8)}` } }),
  '/v1/admin/fee-schedules/{id}/rules': async () => {
    const schedule = await post<{ id: string }>(tenantA.root, '/v1/admin/fee-schedules', { name: `Draft ${randomUUID().slice(0, 8)}` });
    const rule = { transactionType: 'transfer', currencyCode: 'KES', flatFee: '1.00' };
    return { path: `/v1/admin/fee-schedules/${schedule.id}/rules`, body: rule };
  },
  '/v1/deposits/bank-slips': async () => {
    const wallet = await post<{ id: string }>(tenantA.root, '/v1/wallets', {
      ownerType: 'user',
      ownerId: `s-${randomUUID()}`,
      currencyCode: 'KES',
    });
    return {
      path: '/v1/deposits/bank-slips',
      body: { walletId: wallet.id, amount: '3.00', currencyCode: 'KES', bankCode: 'stanbic', slipReference: `S-${randomUUID()}` },
    };
  },
  '/v1/bank-statements': async () => ({
    path: '/v1/bank-statements',
    body: { bankCode: 'stanbic', currencyCode: 'KES', lines: [{ date: '2026-11-30', reference: `R-${randomUUID()}`, amount: '3.00' }] },
  }),
  '/v1/transfers': async () => {
    const to = await post<{ id: string }>(tenantA.root, '/v1/wallets', {
      ownerType: 'user',
      ownerId: `t-${randomUUID()}`,
      currencyCode: 'KES',
    });
    return {
      path: '/v1/transfers',
      body: { fromWalletId: await fundedWallet('10.00'), toWalletId: to.id, amount: '2.00', currencyCode: 'KES' },
    };
  },
  '/v1/transfers/{id}/reversals': async () => ({
    path: `/v1/transfers/${await transfer()}/reversals`,
    body: { amount: '1.00', reason: 'replay' },
  }),
  '/v1/payouts': async (actorId) => ({ path: '/v1/payouts', body: await payoutBody(actorId) }),
  '/v1/payouts/{id}/approve': async (actorId) => ({ path: `/v1/payouts/${await pendingCase('/v1/payouts')}/approve`, body: { actorId } }),
  '/v1/payouts/{id}/reject': async (actorId) => ({
    path: `/v1/payouts/${await pendingCase('/v1/payouts')}/reject`,
    body: { actorId, reason: 'no' },
  }),
  '/v1/reconciliation/matches': async (actorId) => ({
    path: '/v1/reconciliation/matches',
    body: { ...(await slipAndLine()), reason: 'the bank wrote its own reference', proposedBy: actorId },
  }),
  '/v1/admin/money/float-deposits': async () => ({
    path: '/v1/admin/money/float-deposits',
    body: { amount: '5.00', currencyCode: 'KES', rail: 'momo' },
  }),
  '/v1/admin/money/withdrawals': async (actorId) => ({ path: '/v1/admin/money/withdrawals', body: withdrawalBody(actorId) }),
  '/v1/admin/money/withdrawals/{id}/approve': async (actorId) => {
    const id = await pendingCase('/v1/admin/money/withdrawals');
    return { path: `/v1/admin/money/withdrawals/${id}/approve`, body: { actorId } };
  },
  '/v1/admin/money/withdrawals/{id}/reject': async (actorId) => {
    const id = await pendingCase('/v1/admin/money/withdrawals');
    return { path: `/v1/admin/money/withdrawals/${id}/reject`, body: { actorId, reason: 'no' } };
  },
};

const keyedTenantRoutes = ROUTES.filter((route) => route.idempotencyKey !== undefined && route.surface === 'tenant');

/**
 * What a replayed request got, as the tables below compare it: the remembered answer (marked or
 * not), or the refusal; `own` for a caller whose key space is its own, where any answer of its
 * own execution will do (a 404 for tenant A's ids, a 201 for a creation of its own).
 */
function outcomeOf(answer: Answer, first: Answer, own: boolean): string {
  if (answer.replayed) return 'replayed';
  if (answer.text === first.text) return 'the first answer, unmarked';
  return own ? 'its own' : `${answer.status} ${answer.code}`;
}

/**
 * The values of the first answer a replay to anyone else must not hold: any secret shown once,
 * and, unless the caller ran its own execution, the id of what it made (an execution of the other
 * environment may name a resource both share, such as the fee rule its own rule overlaps).
 */
function leaksOf(answer: Answer, first: Answer, ownExecution: boolean): number {
  const shown = JSON.parse(first.text) as Record<string, unknown>;
  const fields = ['key', 'signingSecret', 'webhookSecret', 'inviteUrl', ...(ownExecution ? [] : ['id'])];
  return fields.filter((field) => typeof shown[field] === 'string' && answer.text.includes(shown[field])).length;
}

interface Replayer {
  who: string;
  credential: Credential;
  /** The member a key names in its actor headers. */
  actorId?: string;
  expected: string;
}

/** Sends the first request's exact bytes and key as each replayer, and says what each got. */
async function replays(
  sent: { path: string; body: string; key: string },
  first: Answer,
  replayers: Replayer[],
): Promise<{ seen: string[]; expected: string[] }> {
  const seen: string[] = [];
  const expected: string[] = [];
  for (const [index, replayer] of replayers.entries()) {
    const answer = await call(system.publicUrl, replayer.credential, {
      ...sent,
      ...(replayer.actorId ? { actorId: replayer.actorId } : {}),
    });
    // The first replayer is the first caller itself: the control, which gets the answer again.
    const ownExecution = replayer.expected === 'its own';
    const leaks = index === 0 ? 0 : leaksOf(answer, first, ownExecution);
    seen.push(`${replayer.who}: ${outcomeOf(answer, first, ownExecution)}, leaks ${leaks}`);
    expected.push(`${replayer.who}: ${replayer.expected}, leaks 0`);
  }
  return { seen, expected };
}

/** Route `path`'s request, made fresh, as bytes with a key of its own. */
async function firstRequest(path: string, actorId: string): Promise<{ path: string; body: string; key: string }> {
  const request = await REQUESTS[path]!(actorId);
  return { path: request.path, body: JSON.stringify(request.body), key: `replay-${randomUUID()}` };
}

beforeAll(async () => {
  const noLimits = {
    GATEWAY_RATE_LIMIT_KEY_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_TENANT_PER_SECOND: '0',
    GATEWAY_RATE_LIMIT_IP_PER_SECOND: '0',
  };
  system = await startSecuritySystem('security_replay', noLimits);
  platform = new WalletClient({ baseUrl: system.adminUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
  ledger = await LedgerCommandClient.connect(system.env.AMQP_URL as string, 'security-replay-tests');
  tenantA = await newTenant();
  rootInTest = await tenantKey(tenantA.id, ['tenant:manage'], 'test');
  otherTenantRoot = (await newTenant()).root;
  const first = await member('org-admin');
  const second = await member('org-admin');
  maker = await member('operator');
  admin = { id: first.id, session: await sessionOf(first.email) };
  secondAdmin = { id: second.id, session: await sessionOf(second.email) };
  // Withdrawals draw on the tenant's float.
  await post(tenantA.root, '/v1/admin/money/float-deposits', { amount: '1000.00', currencyCode: 'KES', rail: 'momo' });
});

afterAll(async () => {
  await ledger?.close();
  await system?.close();
});

describe('the authorization matrix: replay column', () => {
  it('has a request for every tenant route that takes an Idempotency-Key', () => {
    expect(keyedTenantRoutes.map((route) => route.path).sort()).toEqual(Object.keys(REQUESTS).sort());
  });

  it.each(keyedTenantRoutes.map((route) => [route.path, route] as const))(
    '%s: first made by the root key, replayed by a weaker key, another tenant, the other environment and a session',
    async (path, route: RouteContract) => {
      const weaker = await tenantKey(tenantA.id, [route.scope as Scope], 'live');
      const sent = await firstRequest(path, admin.id);
      const first = await call(system.publicUrl, tenantA.root, sent);
      expect(first.status).toBeLessThan(300);
      const { seen, expected } = await replays(sent, first, [
        { who: 'the same root key', credential: tenantA.root, expected: 'replayed' },
        { who: 'a weaker key of the tenant', credential: weaker, expected: '422 IDEMPOTENCY_KEY_REUSED' },
        { who: 'a key of another tenant', credential: otherTenantRoot, expected: 'its own' },
        { who: 'a key of the other environment', credential: rootInTest, expected: 'its own' },
        // The admin's session: the member the body names, so it passes the gateway's actor binding.
        { who: 'a session', credential: admin.session, expected: '422 IDEMPOTENCY_KEY_REUSED' },
      ]);
      expect(seen).toEqual(expected);
    },
  );

  it.each(keyedTenantRoutes.map((route) => [route.path, route] as const))(
    "%s: first made in a member's session, replayed by keys naming that member and by another member's session",
    async (path, route: RouteContract) => {
      const weaker = await tenantKey(tenantA.id, [route.scope as Scope], 'live');
      const sent = await firstRequest(path, admin.id);
      const first = await call(system.publicUrl, admin.session, sent);
      expect(first.status).toBeLessThan(300);
      // Where the body names the first member, the gateway refuses another member's session before any replay.
      const bodyNamesMember = /"(actorId|requestedBy)"/.test(sent.body);
      const { seen, expected } = await replays(sent, first, [
        { who: 'the same session', credential: admin.session, expected: 'replayed' },
        { who: 'a weaker key naming the member', credential: weaker, actorId: admin.id, expected: '422 IDEMPOTENCY_KEY_REUSED' },
        { who: 'the root key naming the member', credential: tenantA.root, actorId: admin.id, expected: '422 IDEMPOTENCY_KEY_REUSED' },
        {
          who: "another member's session",
          credential: secondAdmin.session,
          expected: bodyNamesMember ? '403 ACTOR_MISMATCH' : '422 IDEMPOTENCY_KEY_REUSED',
        },
      ]);
      expect(seen).toEqual(expected);
    },
  );

  it('opens no system route that takes an Idempotency-Key to tenant credentials, replay or not', async () => {
    const systemRoutes = ROUTES.filter((route) => route.idempotencyKey !== undefined && route.surface === 'system');
    expect(systemRoutes.length).toBeGreaterThan(0);
    for (const route of systemRoutes) {
      const path = route.path.replace(/\{\w+\}/g, tenantA.id);
      const sent = { path, body: '{}', key: `replay-${randomUUID()}` };
      const answers = await Promise.all([tenantA.root, admin.session].map((credential) => call(system.adminUrl, credential, sent)));
      expect(answers.map((answer) => `${route.path}: ${answer.status} ${answer.replayed}`)).toEqual(
        answers.map(() => `${route.path}: 401 false`),
      );
    }
  });
});
