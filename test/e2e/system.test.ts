import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EVENT_TYPES } from '@wallet/contracts';
import { createDb } from '@wallet/kit';
import { createTestDatabase, createTestVhost, waitFor, WebhookReceiver } from '@wallet/kit/testing';
import { isWalletApiError, WalletClient } from '@wallet/sdk';
import { Webhook } from 'standardwebhooks';
import { driveEveryEvent } from './every-event';
import { installPackedSdk, type SdkProject } from './sdk-package';
import { onFreePorts } from '../../scripts/lib/system-ports';

const ROOT = path.resolve(__dirname, '../..');
const SYSTEM_KEY = 'e2e-system-key-0123456789abcdefghijklmnop';

/** A login on the dashboard listener as its page makes it: the CSRF cookie of a first safe request echoed in the header. */
async function dashboardLogin(dashboardUrl: string, email: string, password: string): Promise<{ status: number; orgRole?: string }> {
  const first = await fetch(`${dashboardUrl}/v1/auth/session`);
  const csrf = /wallet_csrf=([^;]+)/.exec(first.headers.getSetCookie().join('\n'))?.[1] ?? '';
  const login = await fetch(`${dashboardUrl}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `wallet_csrf=${csrf}`, 'x-csrf-token': csrf },
    body: JSON.stringify({ email, password, environment: 'live' }),
  });
  const session = (await login.json()) as { member?: { orgRole: string } };
  return { status: login.status, orgRole: session.member?.orgRole };
}

/** A migrated ledger database whose partition map (docs/scaling.md) puts every partition on `shard`. */
async function ledgerShardZeroMappingAllTo(shard: number): Promise<string> {
  const url = await createTestDatabase('e2e_ledger', { migratedFor: 'ledger' });
  const db = createDb(url, { poolMax: 1 });
  try {
    await db.raw('INSERT INTO ledger_partition_shards (partition, shard) SELECT partition, ? FROM generate_series(0, 31) AS partition', [
      shard,
    ]);
  } finally {
    await db.destroy();
  }
  return url;
}

/**
 * The README's start command (`npm start` runs scripts/start.ts) brings up all five services
 * as real processes on fresh databases and a fresh vhost; a tenant created through the
 * gateway's admin listener ends up with its system accounts in the ledger.
 */
/** The processes `npm start` (pid `parent`) runs from identity's bundle: the instance each is, its nice value and its WEBHOOK_DELIVERY. */
function identityProcesses(parent: number): Array<{ instance: string; nice: number; delivery: string | undefined }> {
  const found = [];
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command's name: the 4th of stat is the first here, so the parent is [1] and the nice value (19th) [16].
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (Number(fields[1]) !== parent || !command.some((part) => part.endsWith('dist/identity.js'))) continue;
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      found.push({
        instance: command.find((part) => part.startsWith('--instance='))?.slice('--instance='.length) ?? 'identity',
        nice: Number(fields[16]),
        delivery: environ.find((entry) => entry.startsWith('WEBHOOK_DELIVERY='))?.slice('WEBHOOK_DELIVERY='.length),
      });
    } catch {
      // a process that ended while being read
    }
  }
  return found.sort((a, b) => a.instance.localeCompare(b.instance));
}

describe('the whole system, started as the README says', () => {
  let system: ChildProcess;
  let output = '';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SYSTEM_API_KEY: SYSTEM_KEY,
    LOG_LEVEL: 'warn',
    // The test's webhook receiver listens on 127.0.0.1: allowed here by explicit configuration only.
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  };
  let ledgerDatabaseUrl: string;
  // Packed, installed and compiled while the system boots and the tests before its own run: none of that needs the system.
  let sdkProject: Promise<SdkProject> | undefined;

  beforeAll(async () => {
    sdkProject = installPackedSdk();
    // Awaited by its test; a failure is reported there, not as an unhandled rejection meanwhile.
    sdkProject.catch(() => undefined);
    for (const service of ['gateway', 'identity', 'payments', 'treasury'])
      env[`${service.toUpperCase()}_DATABASE_URL`] = await createTestDatabase(`e2e_${service}`);
    env.LEDGER_DATABASE_URL = await ledgerShardZeroMappingAllTo(1);
    // Two ledger shards, every partition on shard 1: each tenant's money is in a database other
    // than the directory's, so a read that missed its tenant's shard would find nothing.
    ledgerDatabaseUrl = await createTestDatabase('e2e_ledger_shard1');
    env.LEDGER_SHARDS = ledgerDatabaseUrl;
    env.AMQP_URL = await createTestVhost('e2e');
    await onFreePorts(env);
    system = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    system.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    system.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(
      async () => {
        if (system.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
        try {
          const ready = await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/readyz`);
          return ready.ok ? true : undefined;
        } catch {
          return undefined;
        }
      },
      { timeoutMs: 90_000, intervalMs: 250, what: 'the gateway to report every service ready' },
    );
  });

  afterAll(async () => {
    if (system && system.exitCode === null) {
      const exited = new Promise((resolve) => system.once('exit', resolve));
      system.kill('SIGTERM');
      await exited;
    }
    await sdkProject?.then((project) => project.remove()).catch(() => undefined);
  });

  it('creates a tenant through the gateway and provisions its system accounts in the ledger', async () => {
    const response = await fetch(`http://127.0.0.1:${env.ADMIN_PORT}/v1/tenants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-system-key': SYSTEM_KEY },
      body: '{"name":"Kampala Agents","slug":"kampala-agents","config":{"defaultCurrency":"UGX","allowedCurrencies":["UGX","KES"],"maxTransactionAmount":5000000}}',
    });
    expect(response.status).toBe(201);
    const tenant = (await response.json()) as { id: string; config: { maxTransactionAmount: string } };
    expect(tenant.id).toMatch(/^tn_/);
    expect(tenant.config.maxTransactionAmount).toBe('5000000');
    expect(response.headers.get('x-correlation-id')).toBeTruthy();

    const ledgerDb = createDb(ledgerDatabaseUrl, { poolMax: 1 });
    try {
      const accounts = await waitFor(
        async () => {
          const rows: Array<{ environment: string; currency_code: string; name: string }> = await ledgerDb('accounts')
            .where({ tenant_id: tenant.id })
            .select('environment', 'currency_code', 'name');
          return rows.length === 32 ? rows : undefined;
        },
        { timeoutMs: 30_000, what: "the tenant's system accounts" },
      );
      expect(
        accounts
          .filter((account) => account.environment === 'live' && account.currency_code === 'KES')
          .map((account) => account.name)
          .sort(),
      ).toEqual([
        'asset:bank-clearing:KES',
        'asset:cash-clearing:KES',
        'asset:momo-clearing:KES',
        'asset:pool:KES',
        'payout-clearing',
        'platform-commission',
        'revenue:fees',
        'suspense',
      ]);
    } finally {
      await ledgerDb.destroy();
    }

    const fetched = await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/v1/tenants/${tenant.id}`, {
      headers: { 'x-system-key': SYSTEM_KEY },
    });
    expect(fetched.status).toBe(200);
    const wrongKey = await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/v1/tenants/${tenant.id}`, { headers: { 'x-system-key': 'nope' } });
    expect(((await wrongKey.json()) as { error: { code: string } }).error.code).toBe('INVALID_SYSTEM_KEY');
  });

  it("serves a tenant's developer through the SDK: keys, signed requests and their request logs", async () => {
    const platform = new WalletClient({ baseUrl: `http://127.0.0.1:${env.ADMIN_PORT}`, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    const tenant = await platform.system.organizations.create({
      name: 'Lagos Market',
      slug: 'lagos-market',
      config: { defaultCurrency: 'NGN', allowedCurrencies: ['NGN'], maxTransactionAmount: '250000.50' },
    });
    const admin = await platform.apiKeys.createForTenant(tenant.id, {
      name: 'ops',
      scopes: [
        'api_keys:manage',
        'ledger:read',
        'request_logs:read',
        'wallets:create',
        'wallets:read',
        'wallet:deposit',
        'deposits:verify',
        'transfers:create',
        'fees:read',
        'analytics:read',
      ],
      environment: 'live',
    });
    const baseUrl = `http://127.0.0.1:${env.GATEWAY_PORT}`;
    const ops = new WalletClient({ baseUrl, auth: { type: 'secret', apiKey: admin.key as string } });
    const signer = await ops.apiKeys.create({ name: 'backend', authMode: 'hmac', scopes: ['ledger:read'], environment: 'live' });
    const backend = new WalletClient({ baseUrl, auth: { type: 'hmac', keyId: signer.id, signingSecret: signer.signingSecret as string } });

    const correlationId = `e2e-${Date.now()}`;
    // The ledger provisions the new tenant's accounts from its tenant.created event, shortly after.
    const accounts = await waitFor(
      async () => {
        const page = await backend.ledger.accounts({ currencyCode: 'NGN' }, { correlationId });
        return page.data.some((account) => account.name === 'revenue:fees') ? page : undefined;
      },
      { timeoutMs: 30_000, what: "the tenant's NGN accounts" },
    );
    expect(accounts.data.every((account) => account.currencyCode === 'NGN')).toBe(true);

    const logged = await waitFor(async () => (await ops.requestLogs.list({ correlationId })).data[0], {
      timeoutMs: 10_000,
      what: 'the signed request in the request logs',
    });
    expect(logged).toMatchObject({
      apiKeyId: signer.id,
      authMode: 'hmac',
      requestSignatureVerified: true,
      status: 200,
      path: '/v1/ledger/accounts',
    });

    // A wallet through payments; a retry of the same call (same Idempotency-Key) replays it.
    const wallet = await ops.wallets.create(
      { ownerType: 'user', ownerId: 'ada-lagos', currencyCode: 'NGN' },
      { idempotencyKey: `e2e-wallet-${correlationId}` },
    );
    const replayed = await ops.wallets.create(
      { ownerType: 'user', ownerId: 'ada-lagos', currencyCode: 'NGN' },
      { idempotencyKey: `e2e-wallet-${correlationId}` },
    );
    expect(replayed.id).toBe(wallet.id);
    expect(await ops.wallets.get(wallet.id)).toMatchObject({
      id: wallet.id,
      balance: '0.00',
      currencyCode: 'NGN',
      status: 'active',
      environment: 'live',
    });

    // Money in by bank slip, verified against an imported statement; then a transfer out.
    const slip = await ops.deposits.submitBankSlip({
      walletId: wallet.id,
      amount: '1500.00',
      currencyCode: 'NGN',
      bankCode: 'GTB',
      slipReference: `SLIP-${correlationId}`,
    });
    expect(slip).toMatchObject({ status: 'pending', amount: '1500.00' });
    const statement = await ops.deposits.importStatement({
      bankCode: 'GTB',
      currencyCode: 'NGN',
      lines: [{ date: '2026-11-20', reference: `slip-${correlationId}`, amount: '1500.00' }],
    });
    expect(statement).toMatchObject({ imported: 1, duplicates: 0 });
    // The verifier is a team member whose role grants deposits:verify; the ops key cannot add one (team:manage).
    const owner = await platform.apiKeys.createForTenant(tenant.id, { name: 'owner', scopes: ['tenant:manage'], environment: 'live' });
    const team = new WalletClient({ baseUrl, auth: { type: 'secret', apiKey: owner.key as string } }).team;
    const password = `e2e-${correlationId}-password`;
    const verifier = await team.create({ name: 'Ops Lagos', email: 'ops@lagos-market.example', password, orgRole: 'operator' });
    const verified = await ops.deposits.verify(slip.id, { actorId: verifier.id });
    expect(verified).toMatchObject({ id: slip.id, status: 'completed', verifiedBy: verifier.id });
    expect((await ops.wallets.get(wallet.id)).balance).toBe('1500.00');

    const receiver = await ops.wallets.create({ ownerType: 'company', ownerId: 'bola-abuja', currencyCode: 'NGN' });
    expect(await ops.fees.quote({ transactionType: 'transfer', currencyCode: 'NGN', amount: '250.50' })).toMatchObject({ fee: '0.00' });
    const sent = await ops.transfers.create({ fromWalletId: wallet.id, toWalletId: receiver.id, amount: '250.50', currencyCode: 'NGN' });
    expect(sent).toMatchObject({ status: 'completed', amount: '250.50', fee: '0.00' });
    expect(await ops.transfers.get(sent.id)).toEqual(sent);
    expect((await ops.transfers.list({ walletId: receiver.id })).data.map((each) => each.id)).toEqual([sent.id]);
    expect((await ops.wallets.get(wallet.id)).balance).toBe('1249.50');
    expect((await ops.wallets.get(receiver.id)).balance).toBe('250.50');

    // Every cent where it should be: the tenant's reconciliation and the platform's agree.
    const reconciled = await ops.reconciliation.run();
    expect(reconciled.status).toBe('ok');
    expect(reconciled.checks.map((check) => check.name)).toEqual(['balances', 'entries_balance', 'business_records', 'bank_evidence']);
    expect((await platform.reconciliation.runAcrossTenants()).status).toBe('ok');

    await ops.apiKeys.revoke(signer.id);
    const refusal = await backend.ledger.accounts().catch((error: unknown) => error);
    expect(isWalletApiError(refusal, 'API_KEY_REVOKED')).toBe(true);
  });

  /** `npm run demo` against the started system, as a newcomer runs it: its exit code and everything it printed. */
  async function runDemo(): Promise<{ exitCode: number | null; printed: string }> {
    const demo = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/demo.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        GATEWAY_URL: `http://127.0.0.1:${env.GATEWAY_PORT}`,
        ADMIN_URL: `http://127.0.0.1:${env.ADMIN_PORT}`,
        DASHBOARD_URL: `http://127.0.0.1:${env.DASHBOARD_PORT}`,
        SYSTEM_API_KEY: SYSTEM_KEY,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    demo.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    demo.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => demo.once('exit', resolve));
    return { exitCode, printed };
  }

  /** The demo's closing lines: the dashboard's address and two logins that sign in there with their roles. */
  async function expectWorkingLogins(printed: string): Promise<void> {
    const dashboardUrl = `http://127.0.0.1:${env.DASHBOARD_PORT}`;
    expect(printed).toContain(`The dashboard: ${dashboardUrl}`);
    for (const role of ['org-admin', 'approver']) {
      const [, email, password] = new RegExp(`\\n  ${role} +(\\S+) +password (\\S+)\\n`).exec(printed) ?? [];
      expect({ role, email, password }).toEqual({ role, email: expect.any(String), password: expect.any(String) });
      expect(await dashboardLogin(dashboardUrl, email as string, password as string)).toMatchObject({ status: 200, orgRole: role });
    }
  }

  it('runs `npm run demo` green against it: every step, the journal, both reconciliations ok, and dashboard logins that work', async () => {
    const { exitCode, printed } = await runDemo();
    expect({ exitCode, printed }).toEqual({ exitCode: 0, printed: expect.stringContaining('Demo finished') });
    for (const kind of [
      'momo_deposit',
      'bank_deposit',
      'transfer',
      'payout_hold',
      'payout_settle',
      'payout_complete',
      'payout_release',
      'tenant_float_deposit',
      'withdrawal_hold',
      'withdrawal_settle',
      'withdrawal_complete',
    ]) {
      expect(printed).toContain(`\n${kind} `);
    }
    expect(printed).toContain('refused, SELF_APPROVAL_FORBIDDEN');
    expect(printed).toContain('refused, INSUFFICIENT_FUNDS');
    expect(printed).toMatch(/pending payouts 0, pending withdrawals 0/);
    expect(printed).toMatch(/tenant: ok\nplatform \(every tenant, for information\): ok/);
    await expectWorkingLogins(printed);
  });

  // After the first demo: this tenant's statement line nobody claims leaves the platform's books in mismatch.
  it('announces every event type to a real receiver, each verified with standardwebhooks and processed once', async () => {
    const platform = new WalletClient({ baseUrl: `http://127.0.0.1:${env.ADMIN_PORT}`, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    const tenant = await platform.system.organizations.create({
      name: 'Nairobi Agents',
      slug: 'nairobi-agents',
      config: { defaultCurrency: 'KES', allowedCurrencies: ['KES'], maxTransactionAmount: '10000.00' },
    });
    const owner = await platform.apiKeys.createForTenant(tenant.id, { name: 'owner', scopes: ['tenant:manage'], environment: 'live' });
    const gatewayUrl = `http://127.0.0.1:${env.GATEWAY_PORT}`;
    const ops = new WalletClient({ baseUrl: gatewayUrl, auth: { type: 'secret', apiKey: owner.key as string } });
    const receiver = new WebhookReceiver();
    try {
      const endpoint = await ops.webhookEndpoints.create({ url: await receiver.start() });
      receiver.secrets = [endpoint.secret];
      const member = (name: string, orgRole: 'operator' | 'approver') =>
        ops.team.create({ name, email: `${name}@nairobi-agents.example`, password: `e2e-${randomUUID()}`, orgRole });
      const [operator, approver] = [await member('olga', 'operator'), await member('abel', 'approver')];
      const provider = await ops.momoProviders.create({ providerCode: 'mtn', name: 'MTN' });
      await waitFor(async () => ((await ops.ledger.accounts({ currencyCode: 'KES' })).data.length > 0 ? true : undefined), {
        what: "the tenant's KES accounts",
      });
      await driveEveryEvent({ ops, gatewayUrl, operatorId: operator.id, approverId: approver.id, providerSecret: provider.webhookSecret });
      await ops.webhookEndpoints.sendTest(endpoint.id);
      const expected = [...EVENT_TYPES].sort();
      const typesReceived = () => [...new Set([...receiver.processed.values()].map((event) => event.type))].sort();
      // Waited for, then compared: a type still missing shows in the difference.
      await waitFor(async () => (typesReceived().length === expected.length ? true : undefined), { timeoutMs: 30_000 }).catch(
        () => undefined,
      );
      expect(typesReceived()).toEqual(expected);
      expect(receiver.attempts.every((attempt) => attempt.verifiedWith.length === 1)).toBe(true);
      // Each event arrived once per announcement; the log has each once, and lists what the receiver processed.
      const logged = (await ops.events.list({ limit: 200 })).data.map((event) => event.id);
      expect(new Set(logged)).toEqual(new Set(receiver.processed.keys()));
      // Delivered by identity's webhooks process, behind the money path: the identity that serves requests delivers nothing.
      expect(identityProcesses(system.pid as number)).toEqual([
        { instance: 'identity', nice: 0, delivery: 'false' },
        { instance: 'webhooks', nice: 10, delivery: 'true' },
      ]);
    } finally {
      await receiver.close();
    }
  });

  it("runs `npm run demo` green again while another tenant has a bank statement line nothing matches: the platform's mismatch is shown, not failed on", async () => {
    const platform = new WalletClient({ baseUrl: `http://127.0.0.1:${env.ADMIN_PORT}`, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    const other = await platform.system.organizations.create({
      name: 'Unreconciled Traders',
      slug: 'unreconciled-traders',
      config: { defaultCurrency: 'USD', allowedCurrencies: ['USD'], maxTransactionAmount: '1000.00' },
    });
    const owner = await platform.apiKeys.createForTenant(other.id, { name: 'owner', scopes: ['tenant:manage'], environment: 'live' });
    const books = new WalletClient({
      baseUrl: `http://127.0.0.1:${env.GATEWAY_PORT}`,
      auth: { type: 'secret', apiKey: owner.key as string },
    });
    expect(
      await books.deposits.importStatement({
        bankCode: 'stanbic',
        currencyCode: 'USD',
        lines: [{ date: '2026-11-30', reference: 'NO-SLIP-CLAIMS-THIS', amount: '77.00', description: 'unexplained credit' }],
      }),
    ).toMatchObject({ imported: 1 });
    expect((await platform.reconciliation.runAcrossTenants()).status).toBe('mismatch');

    const { exitCode, printed } = await runDemo();
    expect({ exitCode, printed }).toEqual({ exitCode: 0, printed: expect.stringContaining('Demo finished') });
    expect(printed).toMatch(/tenant: ok\nplatform \(every tenant, for information\): mismatch/);
    await expectWorkingLogins(printed);
  });

  it("leaves no ledger command unanswered after the demos: every movement's result reaches the service that sent it", async () => {
    for (const service of ['payments', 'treasury']) {
      const db = createDb(env[`${service.toUpperCase()}_DATABASE_URL`] as string, { poolMax: 1 });
      try {
        const waiting = async (): Promise<string[]> => (await db('outbox_unanswered').pluck('message_id')) as string[];
        await waitFor(async () => ((await waiting()).length === 0 ? true : undefined), {
          timeoutMs: 15_000,
          what: `${service}'s ledger commands answered: ${(await waiting()).join(', ')}`,
        });
      } finally {
        await db.destroy();
      }
    }
  });

  it('runs a full reconciliation of every tenant over both ledger shards: the books and the records agree', async () => {
    const platform = new WalletClient({ baseUrl: `http://127.0.0.1:${env.ADMIN_PORT}`, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    const started = await platform.reconciliation.fullRuns.startAcrossTenants();
    const run = await waitFor(
      async () => {
        const found = await platform.reconciliation.runs.get(started.id);
        if (!('state' in found)) throw new Error(`${started.id} is not a full run`);
        return found.state === 'succeeded' || found.state === 'failed' ? found : undefined;
      },
      { timeoutMs: 60_000, what: 'the full run' },
    );
    expect(run.error).toBeNull();
    // Bank evidence is left out: the other tenant's statement line (above) is unmatched on purpose.
    const checks = Object.fromEntries((run.result?.checks ?? []).map((check) => [check.name, check.status]));
    expect(checks).toMatchObject({ balances: 'ok', entries_balance: 'ok', business_records: 'ok' });
  });

  it('serves the OpenAPI document and docs', async () => {
    const document = (await (await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/tenants', '/v1/journal', '/v1/journal/{id}']));
    expect((await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/docs/`)).status).toBe(200);
  });

  it('serves the packed SDK installed into an empty project: CommonJS, ESM and TypeScript (strict, with and without the DOM library)', async () => {
    const project = await (sdkProject as Promise<SdkProject>);
    const platform = new WalletClient({ baseUrl: `http://127.0.0.1:${env.ADMIN_PORT}`, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    const currencies = ['UGX', 'KES', 'USD'];
    const tenant = await platform.system.organizations.create({
      name: 'Packaged Integrations',
      slug: 'packaged-integrations',
      config: { defaultCurrency: 'UGX', allowedCurrencies: currencies, maxTransactionAmount: '1000000' },
    });
    const scopes = ['api_keys:manage', 'ledger:read', 'wallets:create', 'wallets:read'] as const;
    const key = await platform.apiKeys.createForTenant(tenant.id, { name: 'integration', scopes: [...scopes], environment: 'live' });
    const baseUrl = `http://127.0.0.1:${env.GATEWAY_PORT}`;
    const tenantClient = new WalletClient({ baseUrl, auth: { type: 'secret', apiKey: key.key as string } });
    const signer = await tenantClient.apiKeys.create({ name: 'signer', authMode: 'hmac', scopes: ['ledger:read'], environment: 'live' });
    for (const currencyCode of currencies) {
      await waitFor(async () => ((await tenantClient.ledger.accounts({ currencyCode })).data.length > 0 ? true : undefined), {
        timeoutMs: 30_000,
        what: `the tenant's ${currencyCode} accounts`,
      });
    }

    // Signed during a secret rotation: one signature with a secret the receiver no longer has, one with its own.
    const secret = `whsec_${Buffer.from('packaged-integrations-webhook-secret').toString('base64')}`;
    const retired = `whsec_${Buffer.from('a-secret-no-longer-in-use').toString('base64')}`;
    const payload = JSON.stringify({
      id: 'ev_01JD4Z0T9Q6W3M8V2K7N5R1X4B',
      type: 'deposit.completed',
      createdAt: new Date().toISOString(),
      environment: 'live',
      data: { object: { id: 'dep_01JD4Z5K8P', amount: '1500.00', currencyCode: 'UGX', sequence: 0 } },
    }).replace('"sequence":0', '"sequence":9007199254740993');
    const at = new Date();
    const webhookHeaders = {
      'webhook-id': 'msg_packaged_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': [retired, secret].map((each) => new Webhook(each).sign('msg_packaged_1', at, payload)).join(' '),
    };

    const consumers = { 'consumer.cjs': 'UGX', 'consumer.mjs': 'KES', 'out/consumer.js': 'USD' };
    const results = await Promise.all(
      Object.entries(consumers).map(([script, currencyCode]) =>
        project.run(script, {
          WALLET_BASE_URL: baseUrl,
          WALLET_CURRENCY: currencyCode,
          WALLET_API_KEY: key.key as string,
          WALLET_HMAC_KEY_ID: signer.id,
          WALLET_HMAC_SECRET: signer.signingSecret as string,
          WEBHOOK_PAYLOAD: payload,
          WEBHOOK_HEADERS: JSON.stringify(webhookHeaders),
          WEBHOOK_SECRET: secret,
        }),
      ),
    );
    for (const [index, currencyCode] of Object.values(consumers).entries()) {
      const result = results[index] as { created: string; pages: string[][]; signedAccounts: string[] };
      expect(result).toEqual({
        created: expect.stringMatching(/^wl_/),
        repeated: result.created,
        balance: expect.stringMatching(/^0(\.0+)?$/),
        pages: [[expect.stringMatching(/^wl_/)], [expect.stringMatching(/^wl_/)]],
        signedAccounts: expect.arrayContaining([currencyCode]),
        event: { id: 'ev_01JD4Z0T9Q6W3M8V2K7N5R1X4B', type: 'deposit.completed', amount: '1500.00', sequence: '9007199254740993' },
        tampered: 'invalid_signature',
      });
      expect(result.pages.flat()).toContain(result.created);
      expect(new Set(result.signedAccounts)).toEqual(new Set([currencyCode]));
    }
  });
});
