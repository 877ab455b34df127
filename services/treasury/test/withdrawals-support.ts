import { randomBytes, randomUUID } from 'node:crypto';
import { type AuditRecordV1, type LedgerPostV1, TOPOLOGY, withdrawalSchema, type Withdrawal } from '@wallet/contracts';
import { signInternalToken } from '@wallet/kit';
import { LedgerCommandClient } from '@wallet/money-commands';
import { createTestDatabase, createTestVhost } from '@wallet/kit/testing';
import amqp from 'amqplib';
import BigNumber from 'bignumber.js';
import { start as startIdentityService } from '../../identity/src/main';
import { type Caller, type HttpResult, INTERNAL_SECRET, startTreasuryHarness, type TreasuryHarness } from './support';

/** A tenant known to identity (which answers for its members) and provisioned in the ledger. */
export interface WithdrawalTenant extends Caller {
  /** operator: treasury:write, not treasury:approve. */
  maker: string;
  /** approver: treasury:approve, not treasury:write. */
  checker: string;
  /** A second approver, for decisions raced by different members. */
  otherChecker: string;
  /** observer: treasury:read only. */
  observer: string;
  /** org-admin: everything, approval policies included. */
  admin: string;
}

/**
 * Real: treasury and the ledger (support.ts), plus identity on its own database and vhost,
 * answering treasury's member lookups over HTTP as it does in production.
 */
export interface WithdrawalsHarness extends TreasuryHarness {
  commands: LedgerCommandClient;
  /**
   * A tenant at identity with its members; `announced: false` leaves treasury and the ledger
   * without its tenant.created event (a tenant from before treasury listened to them).
   */
  newTenant(options?: { maxTransactionAmount?: string; announced?: boolean }): Promise<WithdrawalTenant>;
  /** Books fee revenue the way a fee-bearing deposit does: DR momo-float, CR wallet amount - fee, CR revenue:fees fee. */
  earnFees(caller: Caller, fee: string): Promise<void>;
  /** Funds the operating float through the float deposit endpoint. */
  fundFloat(caller: Caller, amount: string): Promise<void>;
  requestWithdrawal(
    tenant: WithdrawalTenant,
    body: Record<string, unknown>,
    options?: { key?: string; requestedBy?: string; actor?: string },
  ): Promise<HttpResult>;
  /** Every audit record treasury sent so far about this target. */
  auditsOf(targetId: string): Promise<AuditRecordV1[]>;
}

export async function startWithdrawalsHarness(env: NodeJS.ProcessEnv = {}): Promise<WithdrawalsHarness & { closeAll(): Promise<void> }> {
  const identity = await startIdentityService({
    ...process.env,
    IDENTITY_DATABASE_URL: await createTestDatabase('treasury_identity', { migratedFor: 'identity' }),
    AMQP_URL: await createTestVhost('treasury_identity'),
    IDENTITY_PORT: '0',
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    SECRETS_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const identityUrl = `http://127.0.0.1:${identity.port}`;
  // Delivery is off unless asked for, as in payments' payouts.suite.ts: an approved case stays approved.
  const harness = await startTreasuryHarness({
    IDENTITY_URL: identityUrl,
    TREASURY_POSTING_REPLY_TIMEOUT_MS: '5000',
    TREASURY_WITHDRAWAL_RAIL_INTERVAL_MS: '0',
    ...env,
  });
  const commands = await LedgerCommandClient.connect(harness.amqpUrl, 'treasury-tests');
  const connection = await amqp.connect(harness.amqpUrl);
  const channel = await connection.createChannel();
  const audits: AuditRecordV1[] = [];

  async function identityCall(method: string, path: string, tenantId: string | null, body: unknown): Promise<{ id: string }> {
    const token = signInternalToken(INTERNAL_SECRET, {
      surface: tenantId === null ? 'system' : 'tenant',
      tenantId,
      environment: tenantId === null ? null : 'live',
      keyId: null,
      scopes: tenantId === null ? [] : ['tenant:manage'],
      actor: null,
    });
    const response = await fetch(`${identityUrl}${path}`, {
      method,
      headers: { 'x-internal-token': token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`identity ${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as { id: string };
  }

  const addMember = async (tenantId: string, orgRole: string): Promise<string> =>
    (
      await identityCall('POST', '/v1/team', tenantId, {
        name: orgRole,
        email: `${orgRole}-${randomUUID().slice(0, 8)}@example.com`,
        password: 'correct-horse-battery-9',
        orgRole,
      })
    ).id;

  return {
    ...harness,
    commands,
    async newTenant(options = {}) {
      const slug = `wd-${randomBytes(6).toString('hex')}`;
      const maxTransactionAmount = options.maxTransactionAmount ?? '1000000';
      const { id: tenantId } = await identityCall('POST', '/v1/tenants', null, {
        name: slug,
        slug,
        config: { defaultCurrency: 'USD', allowedCurrencies: ['USD', 'UGX'], maxTransactionAmount },
      });
      const caller: Caller =
        options.announced === false
          ? { tenantId, environment: 'live' }
          : await harness.newCaller(['USD', 'UGX'], tenantId, { maxTransactionAmount });
      return {
        ...caller,
        maker: await addMember(tenantId, 'operator'),
        checker: await addMember(tenantId, 'approver'),
        otherChecker: await addMember(tenantId, 'approver'),
        observer: await addMember(tenantId, 'observer'),
        admin: await addMember(tenantId, 'org-admin'),
      };
    },
    async earnFees(caller, fee) {
      const amount = new BigNumber(fee).plus('100.00').toFixed(2);
      const id = `dep_${randomUUID().replace(/-/g, '')}`;
      const command: LedgerPostV1 = {
        type: 'ledger.post.v1',
        commandId: `${id}:post`,
        tenantId: caller.tenantId,
        environment: caller.environment,
        kind: 'momo_deposit',
        reference: { type: 'deposit', id },
        lines: [
          { accountName: 'momo-float:mtn', direction: 'DR', amount, currencyCode: 'USD' },
          { accountName: 'wallet:payer', walletId: `wl_${caller.tenantId}`, direction: 'CR', amount: '100.00', currencyCode: 'USD' },
          { accountName: 'revenue:fees', direction: 'CR', amount: fee, currencyCode: 'USD' },
        ],
      };
      const result = await commands.request(command);
      if (result.status !== 'posted') throw new Error(`fee revenue not booked: ${JSON.stringify(result)}`);
    },
    async fundFloat(caller, amount) {
      const created = await harness.request(caller, 'POST', '/v1/admin/money/float-deposits', {
        body: { amount, currencyCode: 'USD', rail: 'bank' },
      });
      if (created.status !== 201) throw new Error(`float not funded: ${JSON.stringify(created.body)}`);
    },
    requestWithdrawal(tenant, body, options = {}) {
      return harness.request(tenant, 'POST', '/v1/admin/money/withdrawals', {
        body: {
          currencyCode: 'USD',
          payoutMethod: 'momo',
          destination: { phoneNumber: '+256700000001', network: 'mtn' },
          requestedBy: options.requestedBy ?? tenant.maker,
          ...body,
        },
        ...(options.key !== undefined ? { key: options.key } : {}),
        ...(options.actor !== undefined ? { actor: options.actor } : {}),
      });
    },
    async auditsOf(targetId) {
      for (;;) {
        const message = await channel.get(TOPOLOGY.auditRecords.queue, { noAck: true });
        if (message === false) break;
        audits.push(JSON.parse(message.content.toString()) as AuditRecordV1);
      }
      return audits.filter((record) => record.targetId === targetId);
    },
    async closeAll() {
      await connection.close().catch(() => undefined);
      await commands.close();
      await harness.close();
      await identity.close();
    },
  };
}

export function parseWithdrawal(result: HttpResult): Withdrawal {
  return withdrawalSchema.parse(result.body);
}
