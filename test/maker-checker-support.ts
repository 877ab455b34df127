import { randomUUID } from 'node:crypto';
import {
  type AuditRecordV1,
  auditRecordV1Schema,
  payoutCaseSchema,
  treasuryBalancesSchema,
  walletSchema,
  withdrawalSchema,
} from '@wallet/contracts';
import { type IdentityPeer, startIdentity } from '../services/payments/test/deposits-support';
import { publishedDefault } from '../services/payments/test/fees-support';
import {
  depositCommand,
  type LedgerBackedHarness,
  startLedgerBackedHarness,
  tenantToken as paymentsToken,
} from '../services/payments/test/support';
import { startWithdrawalsHarness, type WithdrawalsHarness, type WithdrawalTenant } from '../services/treasury/test/withdrawals-support';

/** A tenant's members as both case types define them: one maker, two checkers, one member without the approve scope. */
export interface CaseTenant {
  tenantId: string;
  /** operator: may request, may not decide. */
  maker: string;
  /** approver: may decide, may not request. */
  checker: string;
  otherChecker: string;
  /** observer: read only. */
  observer: string;
  /** org-admin: may set the approval policy, and approve where it names the role. */
  admin: string;
}

/** A pending case whose hold the ledger posted, and the source it holds from. */
export interface HeldCase {
  id: string;
  /** The case as the creation's 201 showed it. */
  shown: CaseView;
  /** What the hold took from the source (the fee included where there is one). */
  held: string;
  balanceBeforeHold: string;
  balanceAfterHold: string;
  /** The source's balance now: the wallet's, or the tenant's fee revenue. */
  sourceBalance(): Promise<string>;
}

/** The fields a payout case and a withdrawal share, after the type's own schema checked the whole body. */
export interface CaseView {
  id: string;
  status: string;
  requestedBy: string;
  decidedBy: string | null;
  rejectionReason: string | null;
  holdJournalEntryId: string | null;
  decisionJournalEntryId: string | null;
  awaitingLedger: boolean;
  approvalsRequired: number;
  approverRole: string | null;
  approvals: Array<{ actorId: string; approvedAt: string }>;
}

export interface Answer {
  status: number;
  body: unknown;
}

export type Action = 'approve' | 'reject';

export interface DecideOptions {
  /** An Idempotency-Key; none is sent without it (decisions do not require one). */
  key?: string;
  /** The member the request's token declares as its actor; none when absent. */
  headerActor?: string;
  reason?: string;
}

/** One maker-checker case type, driven over its HTTP surface and read back from the ledger and the audit exchange. */
export interface CaseType {
  name: string;
  /** Journal entry kinds are `<prefix>_hold|settle|release`; audit actions `<prefix>.approved|rejected`. */
  prefix: 'payout' | 'withdrawal';
  auditTargetType: string;
  /** What openHeldCase asks for, in USD. */
  caseAmount: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  newTenant(): Promise<CaseTenant>;
  openHeldCase(tenant: CaseTenant): Promise<HeldCase>;
  decide(tenant: CaseTenant, id: string, action: Action, actorId: string, options?: DecideOptions): Promise<Answer>;
  read(tenant: CaseTenant, id: string): Promise<Answer>;
  /** PUT the case type's approval policy as the tenant's org-admin. */
  setPolicy(tenant: CaseTenant, body: unknown): Promise<Answer>;
  parseCase(body: unknown): CaseView;
  /** The kinds of the ledger's entries referencing the case, in posting order. */
  entriesFor(id: string): Promise<string[]>;
  /** The audit records about the case received so far. */
  auditsOf(id: string): Promise<AuditRecordV1[]>;
}

function decisionBody(action: Action, actorId: string, reason = 'not this month'): Record<string, string> {
  return action === 'approve' ? { actorId } : { actorId, reason };
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not started`);
  return value;
}

/** Wallet payouts: payments with the ledger beside it and identity answering for the members. */
export function payoutCases(): CaseType {
  let started: { harness: LedgerBackedHarness; identity: IdentityPeer; audits: { received(): Promise<unknown[]> } } | undefined;
  const parts = () => required(started, 'payments');

  async function call(
    tenantId: string,
    method: string,
    path: string,
    options: { body?: unknown; key?: string; actor?: string } = {},
  ): Promise<Answer> {
    const token = paymentsToken(tenantId, { actor: options.actor === undefined ? null : { type: 'member', id: options.actor } });
    const headers: Record<string, string> = options.key === undefined ? {} : { 'Idempotency-Key': options.key };
    const result = await parts().harness.request(method, path, {
      token,
      headers,
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    return { status: result.status, body: result.body };
  }

  async function addMember(tenantId: string, orgRole: string): Promise<string> {
    const response = await fetch(`${parts().identity.url}/v1/team`, {
      method: 'POST',
      headers: { 'x-internal-token': paymentsToken(tenantId, { scopes: ['tenant:manage'] }), 'content-type': 'application/json' },
      body: JSON.stringify({
        name: orgRole,
        email: `${orgRole}-${randomUUID().slice(0, 8)}@example.com`,
        password: 'correct-horse-battery-9',
        orgRole,
      }),
    });
    const body = (await response.json()) as { id: string };
    if (response.status !== 201) throw new Error(`member not created: ${JSON.stringify(body)}`);
    return body.id;
  }

  async function walletBalance(tenantId: string, walletId: string): Promise<string> {
    const read = await call(tenantId, 'GET', `/v1/wallets/${walletId}`);
    if (read.status !== 200) throw new Error(`wallet not read: ${JSON.stringify(read.body)}`);
    return walletSchema.parse(read.body).balance;
  }

  return {
    name: 'wallet payouts',
    prefix: 'payout',
    auditTargetType: 'payout_case',
    caseAmount: '50.00',
    async start() {
      const identity = await startIdentity();
      // Delivery is off, as in payouts.suite.ts: an approved case stays approved.
      const harness = await startLedgerBackedHarness({
        IDENTITY_URL: identity.url,
        PAYMENTS_PAYOUT_REPLY_TIMEOUT_MS: '5000',
        PAYMENTS_LEDGER_READ_TIMEOUT_MS: '2000',
        PAYMENTS_PAYOUT_RAIL_INTERVAL_MS: '0',
      });
      started = { harness, identity, audits: await harness.watchAuditRecords() };
    },
    async stop() {
      await started?.harness.close();
      await started?.identity.close();
      started = undefined;
    },
    async newTenant() {
      const { harness, identity } = parts();
      const tenantId = await identity.createTenant({ allowedCurrencies: ['USD'], maxTransactionAmount: '1000000' });
      await harness.publishTenant(tenantId, { allowedCurrencies: ['USD'] });
      // 1.00 + 1 %: the hold takes the fee with the amount, and a rejection gives both back.
      await publishedDefault(
        harness,
        tenantId,
        [{ transactionType: 'payout', currencyCode: 'USD', flatFee: '1.00', percentageFee: '1' }],
        2500,
      );
      return {
        tenantId,
        maker: await addMember(tenantId, 'operator'),
        checker: await addMember(tenantId, 'approver'),
        otherChecker: await addMember(tenantId, 'approver'),
        observer: await addMember(tenantId, 'observer'),
        admin: await addMember(tenantId, 'org-admin'),
      };
    },
    async openHeldCase(tenant) {
      const created = await call(tenant.tenantId, 'POST', '/v1/wallets', {
        body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'USD' },
      });
      if (created.status !== 201) throw new Error(`wallet not created: ${JSON.stringify(created.body)}`);
      const wallet = walletSchema.parse(created.body);
      const deposit = await parts().harness.ledger.commands.request(depositCommand(wallet, '100.00'));
      if (deposit.status !== 'posted') throw new Error(`wallet not funded: ${JSON.stringify(deposit)}`);
      const sourceBalance = () => walletBalance(tenant.tenantId, wallet.id);
      const balanceBeforeHold = await sourceBalance();
      const body = {
        walletId: wallet.id,
        amount: '50.00',
        currencyCode: 'USD',
        payoutMethod: 'momo',
        destination: { phoneNumber: '+256700000001', network: 'mtn' },
        requestedBy: tenant.maker,
        narration: 'supplier',
      };
      const opened = await call(tenant.tenantId, 'POST', '/v1/payouts', { body, key: `idem-${randomUUID()}` });
      if (opened.status !== 201) throw new Error(`payout not held: ${opened.status} ${JSON.stringify(opened.body)}`);
      const shown = payoutCaseSchema.parse(opened.body);
      return { id: shown.id, shown, held: '51.50', balanceBeforeHold, balanceAfterHold: await sourceBalance(), sourceBalance };
    },
    decide(tenant, id, action, actorId, options = {}) {
      const body = decisionBody(action, actorId, options.reason);
      return call(tenant.tenantId, 'POST', `/v1/payouts/${id}/${action}`, {
        body,
        ...(options.key === undefined ? {} : { key: options.key }),
        ...(options.headerActor === undefined ? {} : { actor: options.headerActor }),
      });
    },
    read: (tenant, id) => call(tenant.tenantId, 'GET', `/v1/payouts/cases/${id}`),
    setPolicy: (tenant, body) => call(tenant.tenantId, 'PUT', '/v1/approval-policies/payouts', { body, actor: tenant.admin }),
    parseCase: (body) => payoutCaseSchema.parse(body),
    async entriesFor(id) {
      const rows: Array<{ kind: string }> = await parts()
        .harness.ledger.db('journal_entries')
        .where({ reference_type: 'payout_case', reference_id: id })
        .orderBy('seq')
        .select('kind');
      return rows.map((row) => row.kind);
    },
    async auditsOf(id) {
      const records = (await parts().audits.received()).map((each) => auditRecordV1Schema.parse(each));
      return records.filter((record) => record.targetId === id);
    },
  };
}

/** Tenant withdrawals from fee revenue: treasury with the ledger beside it and identity answering for the members. */
export function withdrawalCases(): CaseType {
  let started: (WithdrawalsHarness & { closeAll(): Promise<void> }) | undefined;
  const harness = () => required(started, 'treasury');
  // Treasury's caller names the environment; every tenant here works live.
  const callerOf = (tenant: CaseTenant): WithdrawalTenant => ({ ...tenant, environment: 'live' });

  async function feeRevenue(tenant: CaseTenant): Promise<string> {
    const read = await harness().request(callerOf(tenant), 'GET', '/v1/admin/money/balances');
    const usd = treasuryBalancesSchema.parse(read.body).data.find((row) => row.currencyCode === 'USD');
    if (!usd) throw new Error(`no USD balances: ${JSON.stringify(read.body)}`);
    return usd.tenantFeeRevenue;
  }

  return {
    name: 'tenant withdrawals',
    prefix: 'withdrawal',
    auditTargetType: 'withdrawal',
    caseAmount: '40.00',
    async start() {
      started = await startWithdrawalsHarness();
    },
    async stop() {
      await started?.closeAll();
      started = undefined;
    },
    async newTenant() {
      const { tenantId, maker, checker, otherChecker, observer, admin } = await harness().newTenant();
      return { tenantId, maker, checker, otherChecker, observer, admin };
    },
    async openHeldCase(tenant) {
      await harness().earnFees(callerOf(tenant), '100.00');
      const sourceBalance = () => feeRevenue(tenant);
      const balanceBeforeHold = await sourceBalance();
      const opened = await harness().requestWithdrawal(
        callerOf(tenant),
        { source: 'tenant_fees', amount: '40.00' },
        { key: `idem-${randomUUID()}` },
      );
      if (opened.status !== 201) throw new Error(`withdrawal not held: ${opened.status} ${JSON.stringify(opened.body)}`);
      const shown = withdrawalSchema.parse(opened.body);
      return { id: shown.id, shown, held: '40.00', balanceBeforeHold, balanceAfterHold: await sourceBalance(), sourceBalance };
    },
    async decide(tenant, id, action, actorId, options = {}) {
      const body = decisionBody(action, actorId, options.reason);
      const result = await harness().request(callerOf(tenant), 'POST', `/v1/admin/money/withdrawals/${id}/${action}`, {
        body,
        key: options.key ?? null,
        ...(options.headerActor === undefined ? {} : { actor: options.headerActor }),
      });
      return { status: result.status, body: result.body };
    },
    async read(tenant, id) {
      const result = await harness().request(callerOf(tenant), 'GET', `/v1/admin/money/withdrawals/${id}`);
      return { status: result.status, body: result.body };
    },
    async setPolicy(tenant, body) {
      const result = await harness().request(callerOf(tenant), 'PUT', '/v1/approval-policies/withdrawals', { body, actor: tenant.admin });
      return { status: result.status, body: result.body };
    },
    parseCase: (body) => withdrawalSchema.parse(body),
    async entriesFor(id) {
      const rows: Array<{ kind: string }> = await harness()
        .ledgerDb('journal_entries')
        .where({ reference_type: 'withdrawal', reference_id: id })
        .orderBy('seq')
        .select('kind');
      return rows.map((row) => row.kind);
    },
    auditsOf: (id) => harness().auditsOf(id),
  };
}
