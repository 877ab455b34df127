import { randomUUID } from 'node:crypto';
import { isWalletApiError, WalletClient } from '@wallet/sdk';
import { momoDeposit } from './scale-setup';

/**
 * The load of the cluster fault run: tenants sending signed transfers and requesting and
 * approving payouts through HAProxy, each request repeated with its Idempotency-Key until it
 * gets an answer that is not a failure of the system (a refused connection, a 5xx, a 503, a
 * key or a payout's hold still in flight), as a careful client does.
 */

export interface ChaosTenant {
  tenantId: string;
  client: WalletClient;
  ops: WalletClient;
  operatorId: string;
  approverId: string;
  wallets: string[];
}

export interface LoadRecord {
  /** Transfers answered 201 (completed: the ledger confirmed them). */
  completed: Set<string>;
  /** Every transfer answered 201 or 202. */
  accepted: Set<string>;
  payouts: Set<string>;
  /** Answers that were a system failure, retried: by kind. */
  retried: Map<string, number>;
  /** Final answers that were an error: by code. */
  refused: Map<string, number>;
}

const WALLETS_PER_TENANT = 10;

export async function setupTenant(baseUrl: string, systemKey: string, index: number): Promise<ChaosTenant> {
  const platform = new WalletClient({ baseUrl, auth: { type: 'system', systemKey } });
  const stamp = `${Date.now().toString(36)}-${index}`;
  const tenant = await platform.system.tenants.create({
    name: `Chaos ${index}`,
    slug: `chaos-${stamp}`,
    config: { defaultCurrency: 'USD', allowedCurrencies: ['USD'], maxTransactionAmount: '1000000' },
  });
  const admin = await platform.apiKeys.createForTenant(tenant.id, { name: 'chaos ops', scopes: ['tenant:manage'], environment: 'live' });
  const ops = new WalletClient({ baseUrl, auth: { type: 'secret', apiKey: admin.key as string } });
  const signer = await ops.apiKeys.create({
    name: 'chaos',
    authMode: 'hmac',
    scopes: ['wallets:read', 'transfers:create'],
    environment: 'live',
  });
  const client = new WalletClient({ baseUrl, auth: { type: 'hmac', keyId: signer.id, signingSecret: signer.signingSecret as string } });
  const member = (orgRole: 'operator' | 'approver') =>
    ops.team.create({ name: orgRole, email: `${orgRole}+${stamp}@chaos.example`, password: `chaos-${randomUUID()}`, orgRole });
  const operator = await member('operator');
  const approver = await member('approver');
  const wallets: string[] = [];
  for (let each = 0; each < WALLETS_PER_TENANT; each++) {
    wallets.push((await ops.wallets.create({ ownerType: 'user', ownerId: `chaos-${each}`, currencyCode: 'USD' })).id);
  }
  // Funds arrive as a provider's deposits, so that they reconcile like everything the run checks.
  const provider = await ops.momoProviders.create({ providerCode: 'mtn', name: 'MTN Mobile Money' });
  for (const walletId of wallets) await momoDeposit(baseUrl, provider.webhookSecret, { id: walletId }, '100000.00');
  return { tenantId: tenant.id, client, ops, operatorId: operator.id, approverId: approver.id, wallets };
}

const IN_PROGRESS = new Set(['IDEMPOTENCY_REQUEST_IN_PROGRESS', 'CASE_HOLD_IN_PROGRESS']);

function isSystemFailure(error: unknown): string | null {
  if (!isWalletApiError(error)) return 'connection';
  if (error.status >= 500) return String(error.status);
  // Answers that say "not yet": a key still in flight, a payout whose hold the ledger has not confirmed yet.
  if (error.status === 429 || (error.status === 409 && IN_PROGRESS.has(error.code))) return error.code;
  return null;
}

/** `call` with one Idempotency-Key, again until its answer is not a system failure. */
/** A request still meeting system failures this long is given up (counted as refused `GAVE_UP`): the run must end. */
const GIVE_UP_AFTER_MS = 120_000;

async function untilAnswered<Result>(record: LoadRecord, call: (key: string) => Promise<Result>): Promise<Result | null> {
  const key = `chaos-${randomUUID()}`;
  const deadline = Date.now() + GIVE_UP_AFTER_MS;
  for (;;) {
    try {
      return await call(key);
    } catch (error) {
      const failure = isSystemFailure(error);
      if (failure === null || Date.now() > deadline) {
        const code = failure === null ? (isWalletApiError(error) ? error.code : String(error)) : `GAVE_UP_${failure}`;
        record.refused.set(code, (record.refused.get(code) ?? 0) + 1);
        return null;
      }
      record.retried.set(failure, (record.retried.get(failure) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function transfer(tenant: ChaosTenant, record: LoadRecord, step: number): Promise<void> {
  const from = tenant.wallets[step % tenant.wallets.length] as string;
  const to = tenant.wallets[(step * 7 + 3) % tenant.wallets.length] as string;
  if (from === to) return;
  let status = 0;
  const sent = await untilAnswered(record, (idempotencyKey) =>
    tenant.client.transfers.create(
      { fromWalletId: from, toWalletId: to, amount: '1.00', currencyCode: 'USD' },
      { idempotencyKey, maxRetries: 0, timeoutMs: 20_000, onResponse: (meta) => void (status = meta.status) },
    ),
  );
  if (!sent) return;
  record.accepted.add(sent.id);
  if (status === 201) record.completed.add(sent.id);
}

async function payout(tenant: ChaosTenant, record: LoadRecord, step: number): Promise<void> {
  const requested = await untilAnswered(record, (idempotencyKey) =>
    tenant.ops.payouts.create(
      {
        walletId: tenant.wallets[step % tenant.wallets.length] as string,
        amount: '5.00',
        currencyCode: 'USD',
        payoutMethod: 'momo',
        destination: { phoneNumber: '+256700000009', network: 'mtn' },
        requestedBy: tenant.operatorId,
      },
      { idempotencyKey, maxRetries: 0, timeoutMs: 20_000 },
    ),
  );
  if (!requested) return;
  record.payouts.add(requested.id);
  await untilAnswered(record, (idempotencyKey) =>
    tenant.ops.payouts.approve(requested.id, { actorId: tenant.approverId }, { idempotencyKey, maxRetries: 0, timeoutMs: 20_000 }),
  );
}

/** `workers` loops per tenant until `stop()`: nine transfers, then a payout requested and approved. */
export function startLoad(tenants: readonly ChaosTenant[], workers: number): { record: LoadRecord; stop(): Promise<void> } {
  const record: LoadRecord = { completed: new Set(), accepted: new Set(), payouts: new Set(), retried: new Map(), refused: new Map() };
  let stopped = false;
  const loops = tenants.flatMap((tenant) =>
    Array.from({ length: workers }, async (_, worker) => {
      for (let step = worker; !stopped; step += workers) {
        await (step % 10 === 9 ? payout(tenant, record, step) : transfer(tenant, record, step));
      }
    }),
  );
  return {
    record,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
