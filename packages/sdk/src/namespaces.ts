import {
  analyticsRoutes as AN,
  depositRoutes as D,
  eventRoutes as EV,
  exportRoutes as X,
  feeRoutes as F,
  payoutRoutes as PO,
  platformRoutes as P,
  teamRoutes as TM,
  reconciliationRoutes as RC,
  statementMatchRoutes as SM,
  transferRoutes as T,
  treasuryRoutes as TR,
  walletRoutes as W,
  webhookEndpointRoutes as WH,
  withdrawalRoutes as WD,
} from '@wallet/contracts';
import type { RequestOptions, RouteCaller } from './route-call';
import { type RouteBody, type RouteQuery, SDK_ROUTES as R } from './routes';

/*
 * Methods are closures, not prototype methods, so that `paginate(client.journal.list, ...)`
 * works without binding.
 */

function systemNamespace(client: RouteCaller) {
  return {
    tenants: {
      create: (body: RouteBody<typeof R.createTenant>, options?: RequestOptions) => client.call(R.createTenant, { body }, options),
      get: (id: string, options?: RequestOptions) => client.call(R.getTenant, { params: { id } }, options),
    },
    organizations: {
      create: (body: RouteBody<typeof R.createOrganization>, options?: RequestOptions) =>
        client.call(R.createOrganization, { body }, options),
      list: (query?: RouteQuery<typeof R.listOrganizations>, options?: RequestOptions) =>
        client.call(R.listOrganizations, { query }, options),
      get: (id: string, options?: RequestOptions) => client.call(R.getOrganization, { params: { id } }, options),
      /** Name and configuration; newly allowed currencies get their ledger system accounts. */
      update: (id: string, body: RouteBody<typeof P.updateOrganization>, options?: RequestOptions) =>
        client.call(P.updateOrganization, { params: { id }, body }, options),
    },
    /** Any tenant's wallet with its balance. */
    wallets: {
      get: (walletId: string, options?: RequestOptions) => client.call(P.getWallet, { params: { walletId } }, options),
    },
    /** Journal entries of every tenant. */
    transactions: {
      list: (query?: RouteQuery<typeof P.listLedgerTransactions>, options?: RequestOptions) =>
        client.call(P.listLedgerTransactions, { query }, options),
      get: (journalEntryId: string, options?: RequestOptions) =>
        client.call(P.getLedgerTransaction, { params: { journalEntryId } }, options),
    },
    /** Any tenant's ledger account, its balance after its last line stamped at or before `at`. */
    ledgerAccounts: {
      balanceAt: (accountId: string, at: string, options?: RequestOptions) =>
        client.call(P.getLedgerAccountBalance, { params: { accountId }, query: { at } }, options),
    },
    /** Ledger reconciliation checks across every tenant. */
    reconciliation: (options?: RequestOptions) => client.call(R.systemReconciliation, {}, options),
    /**
     * Messages parked in the dead-letter queues. A replay delivers one to the queue it died in
     * (its consumer drops what it already applied) and removes it; a discard only removes it.
     * Both are audited; either answers 404 DEAD_LETTER_NOT_FOUND once the message is gone.
     */
    deadLetters: {
      list: (query?: RouteQuery<typeof P.listDeadLetters>, options?: RequestOptions) => client.call(P.listDeadLetters, { query }, options),
      get: (id: string, options?: RequestOptions) => client.call(P.getDeadLetter, { params: { id } }, options),
      replay: (id: string, options?: RequestOptions) => client.call(P.replayDeadLetter, { params: { id } }, options),
      /** Up to `limit` (default 100), of one `queue` or of all, oldest first. */
      replayAll: (body: RouteBody<typeof P.replayDeadLetters> = {}, options?: RequestOptions) =>
        client.call(P.replayDeadLetters, { body }, options),
      discard: (id: string, options?: RequestOptions) => client.call(P.discardDeadLetter, { params: { id } }, options),
    },
  };
}

function journalNamespace(client: RouteCaller) {
  return {
    list: (query?: RouteQuery<typeof R.listJournal>, options?: RequestOptions) => client.call(R.listJournal, { query }, options),
    get: (id: string, options?: RequestOptions) => client.call(R.getJournalEntry, { params: { id } }, options),
  };
}

function ledgerNamespace(client: RouteCaller) {
  return {
    accounts: (query?: RouteQuery<typeof R.listLedgerAccounts>, options?: RequestOptions) =>
      client.call(R.listLedgerAccounts, { query }, options),
    /** A wallet account's statement, newest first, with the balance after each line. */
    walletEntries: (walletId: string, query?: RouteQuery<typeof R.listWalletEntries>, options?: RequestOptions) =>
      client.call(R.listWalletEntries, { params: { walletId }, query }, options),
    reconciliation: (options?: RequestOptions) => client.call(R.ledgerReconciliation, {}, options),
  };
}

function auditEventsNamespace(client: RouteCaller) {
  return {
    list: (query?: RouteQuery<typeof R.listAuditEvents>, options?: RequestOptions) => client.call(R.listAuditEvents, { query }, options),
  };
}

function apiKeysNamespace(client: RouteCaller) {
  return {
    list: (query?: RouteQuery<typeof R.listApiKeys>, options?: RequestOptions) => client.call(R.listApiKeys, { query }, options),
    get: (id: string, options?: RequestOptions) => client.call(R.getApiKey, { params: { id } }, options),
    /** Answers once with the secret: `key` for a secret key, `signingSecret` for an HMAC key. */
    create: (body: RouteBody<typeof R.createApiKey>, options?: RequestOptions) => client.call(R.createApiKey, { body }, options),
    update: (id: string, body: RouteBody<typeof R.updateApiKey>, options?: RequestOptions) =>
      client.call(R.updateApiKey, { params: { id }, body }, options),
    /** `expiresInSeconds`: how long the old secret keeps working (default 0). Answers once with the new secret. */
    rotate: (id: string, body: RouteBody<typeof R.rotateApiKey> = {}, options?: RequestOptions) =>
      client.call(R.rotateApiKey, { params: { id }, body }, options),
    revoke: (id: string, options?: RequestOptions) => client.call(R.revokeApiKey, { params: { id } }, options),
    /** System surface (X-System-Key): keys of any tenant. */
    createForTenant: (tenantId: string, body: RouteBody<typeof R.createTenantApiKey>, options?: RequestOptions) =>
      client.call(R.createTenantApiKey, { params: { id: tenantId }, body }, options),
    listForTenant: (tenantId: string, query?: RouteQuery<typeof R.listTenantApiKeys>, options?: RequestOptions) =>
      client.call(R.listTenantApiKeys, { params: { id: tenantId }, query }, options),
    rotateForTenant: (tenantId: string, keyId: string, body: RouteBody<typeof R.rotateTenantApiKey> = {}, options?: RequestOptions) =>
      client.call(R.rotateTenantApiKey, { params: { id: tenantId, keyId }, body }, options),
    revokeForTenant: (tenantId: string, keyId: string, options?: RequestOptions) =>
      client.call(R.revokeTenantApiKey, { params: { id: tenantId, keyId } }, options),
  };
}

function teamNamespace(client: RouteCaller) {
  return {
    create: (body: RouteBody<typeof R.createTeamMember>, options?: RequestOptions) => client.call(R.createTeamMember, { body }, options),
    /** Invite by email to set its own password; with `inviteEmailSent: false`, `inviteUrl` is the link to hand over, shown this once. */
    invite: (body: RouteBody<typeof TM.invite>, options?: RequestOptions) => client.call(TM.invite, { body }, options),
    /** A new invite for a member still invited: the earlier link stops working. */
    resendInvite: (memberId: string, options?: RequestOptions) => client.call(TM.resendInvite, { params: { memberId } }, options),
    list: (query?: RouteQuery<typeof R.listTeamMembers>, options?: RequestOptions) => client.call(R.listTeamMembers, { query }, options),
    get: (memberId: string, options?: RequestOptions) => client.call(R.getTeamMember, { params: { memberId } }, options),
    /** The names of members a record names (`ids`: comma-separated `usr_` ids); needs only team:read. */
    names: (query: RouteQuery<typeof TM.names>, options?: RequestOptions) => client.call(TM.names, { query }, options),
    /** Change the role, or deactivate. */
    update: (memberId: string, body: RouteBody<typeof R.updateTeamMember>, options?: RequestOptions) =>
      client.call(R.updateTeamMember, { params: { memberId }, body }, options),
  };
}

function authNamespace(client: RouteCaller) {
  return {
    /** A dashboard session (public route): continue with `client.withAuth({ type: 'session', token })`. */
    login: (body: RouteBody<typeof R.login>, options?: RequestOptions) => client.call(R.login, { body }, options),
    /** Ends the session of this token (public route: no other credential needed). */
    logout: (token: string, options?: RequestOptions) => client.call(R.logout, { body: { token } }, options),
    acceptInvite: (body: RouteBody<typeof R.acceptInvite>, options?: RequestOptions) => client.call(R.acceptInvite, { body }, options),
  };
}

function momoProvidersNamespace(client: RouteCaller) {
  return {
    /** Answers once with the provider's `webhookSecret`. */
    create: (body: RouteBody<typeof R.createMomoProvider>, options?: RequestOptions) =>
      client.call(R.createMomoProvider, { body }, options),
    list: (query?: RouteQuery<typeof R.listMomoProviders>, options?: RequestOptions) =>
      client.call(R.listMomoProviders, { query }, options),
    get: (id: string, options?: RequestOptions) => client.call(R.getMomoProvider, { params: { id } }, options),
    /** `expiresInSeconds`: how long the old webhook secret keeps verifying (default 0). Answers once with the new secret. */
    rotateSecret: (id: string, body: RouteBody<typeof R.rotateMomoProviderSecret> = {}, options?: RequestOptions) =>
      client.call(R.rotateMomoProviderSecret, { params: { id }, body }, options),
  };
}

function requestLogsNamespace(client: RouteCaller) {
  return {
    list: (query?: RouteQuery<typeof R.listRequestLogs>, options?: RequestOptions) => client.call(R.listRequestLogs, { query }, options),
  };
}

/** Wallets: the contracts' own routes, typed exactly. Creation gets an Idempotency-Key per call (kept across retries). */
function walletsNamespace(client: RouteCaller) {
  return {
    create: (body: RouteBody<typeof W.create>, options?: RequestOptions) => client.call(W.create, { body }, options),
    list: (query?: RouteQuery<typeof W.list>, options?: RequestOptions) => client.call(W.list, { query }, options),
    get: (id: string, options?: RequestOptions) => client.call(W.get, { params: { id } }, options),
    entries: (id: string, query?: RouteQuery<typeof W.entries>, options?: RequestOptions) =>
      client.call(W.entries, { params: { id }, query }, options),
    /** The balance after the wallet's last line stamped at or before `at` (ISO 8601 with Z or an offset; inclusive). */
    balanceAt: (id: string, at: string, options?: RequestOptions) => client.call(W.balance, { params: { id }, query: { at } }, options),
    freeze: (id: string, body: RouteBody<typeof W.freeze>, options?: RequestOptions) =>
      client.call(W.freeze, { params: { id }, body }, options),
    unfreeze: (id: string, body: RouteBody<typeof W.unfreeze>, options?: RequestOptions) =>
      client.call(W.unfreeze, { params: { id }, body }, options),
  };
}

/** Transfers: creation gets an Idempotency-Key per call (kept across retries); 201 completed or 202 pending. */
/**
 * Lists as CSV: every record the filters select, in one answer the gateway streams page by page.
 * The whole text is returned; an export too large to hold is better read with fetch as a stream.
 */
function exportsNamespace(client: RouteCaller) {
  return {
    transfers: (query?: RouteQuery<typeof X.transfers>, options?: RequestOptions) => client.call(X.transfers, { query }, options),
    deposits: (query?: RouteQuery<typeof X.deposits>, options?: RequestOptions) => client.call(X.deposits, { query }, options),
    payouts: (query?: RouteQuery<typeof X.payouts>, options?: RequestOptions) => client.call(X.payouts, { query }, options),
    withdrawals: (query?: RouteQuery<typeof X.withdrawals>, options?: RequestOptions) => client.call(X.withdrawals, { query }, options),
    floatDeposits: (query?: RouteQuery<typeof X.floatDeposits>, options?: RequestOptions) =>
      client.call(X.floatDeposits, { query }, options),
    wallets: (query?: RouteQuery<typeof X.wallets>, options?: RequestOptions) => client.call(X.wallets, { query }, options),
  };
}

function transfersNamespace(client: RouteCaller) {
  return {
    create: (body: RouteBody<typeof T.create>, options?: RequestOptions) => client.call(T.create, { body }, options),
    list: (query?: RouteQuery<typeof T.list>, options?: RequestOptions) => client.call(T.list, { query }, options),
    get: (id: string, options?: RequestOptions) => client.call(T.get, { params: { id } }, options),
    /** Reverses part or all of a completed transfer; 201 completed or 202 pending, as creation. */
    reverse: (id: string, body: RouteBody<typeof T.reverse>, options?: RequestOptions) =>
      client.call(T.reverse, { params: { id }, body }, options),
    reversals: (id: string, query?: RouteQuery<typeof T.listReversals>, options?: RequestOptions) =>
      client.call(T.listReversals, { params: { id }, query }, options),
  };
}

/**
 * Payout cases under maker-checker: creation gets an Idempotency-Key per call (kept across
 * retries) and holds amount plus fee; approve settles, reject releases; both 409 once decided.
 * A decision sent with an idempotencyKey is retried while the case's hold is still posting
 * (409 CASE_HOLD_IN_PROGRESS, after its Retry-After).
 */
function payoutsNamespace(client: RouteCaller) {
  return {
    create: (body: RouteBody<typeof PO.create>, options?: RequestOptions) => client.call(PO.create, { body }, options),
    list: (query?: RouteQuery<typeof PO.list>, options?: RequestOptions) => client.call(PO.list, { query }, options),
    get: (id: string, options?: RequestOptions) => client.call(PO.get, { params: { id } }, options),
    approve: (id: string, body: RouteBody<typeof PO.approve>, options?: RequestOptions) =>
      client.call(PO.approve, { params: { id }, body }, options),
    reject: (id: string, body: RouteBody<typeof PO.reject>, options?: RequestOptions) =>
      client.call(PO.reject, { params: { id }, body }, options),
    /** Above which amount, per currency, a case needs two approvers or an approver of a named role. */
    approvalPolicy: {
      get: (options?: RequestOptions) => client.call(PO.getApprovalPolicy, {}, options),
      /** Replaces the whole policy (org-admin); open cases keep the requirement they were opened under. */
      set: (body: RouteBody<typeof PO.setApprovalPolicy>, options?: RequestOptions) => client.call(PO.setApprovalPolicy, { body }, options),
    },
  };
}

/**
 * The tenant's own money: balances of its operating accounts, float deposits into the pool, and
 * withdrawals of fee revenue or operating float under maker-checker. Creations get an
 * Idempotency-Key per call (kept across retries); a withdrawal's approve settles and reject
 * releases, both 409 once decided, and retried as a payout's decision is while its hold posts.
 */
function treasuryNamespace(client: RouteCaller) {
  return {
    balances: (options?: RequestOptions) => client.call(TR.balances, {}, options),
    floatDeposits: {
      create: (body: RouteBody<typeof TR.createFloatDeposit>, options?: RequestOptions) =>
        client.call(TR.createFloatDeposit, { body }, options),
      list: (query?: RouteQuery<typeof TR.listFloatDeposits>, options?: RequestOptions) =>
        client.call(TR.listFloatDeposits, { query }, options),
      get: (id: string, options?: RequestOptions) => client.call(TR.getFloatDeposit, { params: { id } }, options),
    },
    withdrawals: {
      create: (body: RouteBody<typeof WD.create>, options?: RequestOptions) => client.call(WD.create, { body }, options),
      list: (query?: RouteQuery<typeof WD.list>, options?: RequestOptions) => client.call(WD.list, { query }, options),
      get: (id: string, options?: RequestOptions) => client.call(WD.get, { params: { id } }, options),
      approve: (id: string, body: RouteBody<typeof WD.approve>, options?: RequestOptions) =>
        client.call(WD.approve, { params: { id }, body }, options),
      reject: (id: string, body: RouteBody<typeof WD.reject>, options?: RequestOptions) =>
        client.call(WD.reject, { params: { id }, body }, options),
      /** Above which amount, per currency, a case needs two approvers or an approver of a named role. */
      approvalPolicy: {
        get: (options?: RequestOptions) => client.call(WD.getApprovalPolicy, {}, options),
        /** Replaces the whole policy (org-admin); open cases keep the requirement they were opened under. */
        set: (body: RouteBody<typeof WD.setApprovalPolicy>, options?: RequestOptions) =>
          client.call(WD.setApprovalPolicy, { body }, options),
      },
    },
  };
}

/** Deposits a tenant submits and verifies; mobile money deposits arrive from the provider's signed webhook. */
function depositsNamespace(client: RouteCaller) {
  return {
    list: (query?: RouteQuery<typeof D.list>, options?: RequestOptions) => client.call(D.list, { query }, options),
    get: (id: string, options?: RequestOptions) => client.call(D.get, { params: { id } }, options),
    /** A pending deposit; nothing is credited until it is verified against an imported statement. */
    submitBankSlip: (body: RouteBody<typeof D.bankSlip>, options?: RequestOptions) => client.call(D.bankSlip, { body }, options),
    verify: (id: string, body: RouteBody<typeof D.verify>, options?: RequestOptions) =>
      client.call(D.verify, { params: { id }, body }, options),
    /** A slip rejected because its statement line was not imported yet: pending again, to be verified once it is. */
    reopen: (id: string, body: RouteBody<typeof D.reopen>, options?: RequestOptions) =>
      client.call(D.reopen, { params: { id }, body }, options),
    /** Statement lines as JSON (the CSV form is for uploads outside the SDK). */
    importStatement: (body: RouteBody<typeof D.importStatement>, options?: RequestOptions) =>
      client.call(D.importStatement, { body }, options),
    /** Imported statement lines, newest first; `matched: 'false'` for the ones no slip has matched yet. */
    statementLines: (query?: RouteQuery<typeof D.statementLines>, options?: RequestOptions) =>
      client.call(D.statementLines, { query }, options),
  };
}

function feesNamespace(client: RouteCaller) {
  return {
    quote: (query: RouteQuery<typeof F.quote>, options?: RequestOptions) => client.call(F.quote, { query }, options),
    schedules: {
      list: (query?: RouteQuery<typeof F.list>, options?: RequestOptions) => client.call(F.list, { query }, options),
      get: (id: string, options?: RequestOptions) => client.call(F.get, { params: { id } }, options),
      create: (body: RouteBody<typeof F.create>, options?: RequestOptions) => client.call(F.create, { body }, options),
      addRule: (id: string, body: RouteBody<typeof F.addRule>, options?: RequestOptions) =>
        client.call(F.addRule, { params: { id }, body }, options),
      /** Removes a rule of a draft; answers the schedule with the rules left. */
      removeRule: (id: string, ruleId: string, options?: RequestOptions) => client.call(F.removeRule, { params: { id, ruleId } }, options),
      publish: (id: string, body: RouteBody<typeof F.publish>, options?: RequestOptions) =>
        client.call(F.publish, { params: { id }, body }, options),
    },
    /** System surface (X-System-Key): any tenant's schedules, with the platform commission. */
    tenantSchedules: {
      create: (tenantId: string, body: RouteBody<typeof F.systemCreate>, options?: RequestOptions) =>
        client.call(F.systemCreate, { params: { tenantId }, body }, options),
      list: (tenantId: string, query?: RouteQuery<typeof F.systemList>, options?: RequestOptions) =>
        client.call(F.systemList, { params: { tenantId }, query }, options),
      get: (tenantId: string, scheduleId: string, options?: RequestOptions) =>
        client.call(F.systemGet, { params: { tenantId, scheduleId } }, options),
      addRule: (tenantId: string, scheduleId: string, body: RouteBody<typeof F.systemAddRule>, options?: RequestOptions) =>
        client.call(F.systemAddRule, { params: { tenantId, scheduleId }, body }, options),
      publish: (tenantId: string, scheduleId: string, body: RouteBody<typeof F.systemPublish>, options?: RequestOptions) =>
        client.call(F.systemPublish, { params: { tenantId, scheduleId }, body }, options),
    },
  };
}

/** docs/decisions/reconciliation.md: all four checks run now (from the last run's checkpoints), full runs from zero in the background, and the platform's scheduled runs. */
function reconciliationNamespace(client: RouteCaller) {
  return {
    /** The caller's tenant and environment (scope analytics:read). */
    run: (options?: RequestOptions) => client.call(RC.tenant, {}, options),
    /** Full re-verifications from zero: start one (202) and follow it, for the caller's tenant and environment or (system surface) every tenant. */
    fullRuns: {
      start: (options?: RequestOptions) => client.call(RC.startTenantRun, {}, options),
      get: (id: string, options?: RequestOptions) => client.call(RC.getTenantRun, { params: { id } }, options),
      startAcrossTenants: (options?: RequestOptions) => client.call(RC.startRun, {}, options),
    },
    /** System surface (X-System-Key): every tenant. */
    runAcrossTenants: (options?: RequestOptions) => client.call(RC.system, {}, options),
    /** System surface: the scheduled runs as recorded, newest first. */
    runs: {
      list: (query?: RouteQuery<typeof RC.listRuns>, options?: RequestOptions) => client.call(RC.listRuns, { query }, options),
      get: (id: string, options?: RequestOptions) => client.call(RC.getRun, { params: { id } }, options),
    },
    /** The workbench: a pending slip and an unmatched line matched by one member, approved (credited through the ledger) or rejected by another. */
    matches: {
      propose: (body: RouteBody<typeof SM.propose>, options?: RequestOptions) => client.call(SM.propose, { body }, options),
      list: (query?: RouteQuery<typeof SM.list>, options?: RequestOptions) => client.call(SM.list, { query }, options),
      approve: (id: string, body: RouteBody<typeof SM.approve>, options?: RequestOptions) =>
        client.call(SM.approve, { params: { id }, body }, options),
      reject: (id: string, body: RouteBody<typeof SM.reject>, options?: RequestOptions) =>
        client.call(SM.reject, { params: { id }, body }, options),
    },
    /** The tenant's match rule applied to the newest pending slips. */
    suggestions: (query?: RouteQuery<typeof SM.suggestions>, options?: RequestOptions) => client.call(SM.suggestions, { query }, options),
    matchRule: {
      get: (options?: RequestOptions) => client.call(SM.getRule, {}, options),
      set: (body: RouteBody<typeof SM.setRule>, options?: RequestOptions) => client.call(SM.setRule, { body }, options),
    },
  };
}

/** Read models fed by the ledger's events: fee revenue, volume, liquidity, pending cases, request errors. */
function analyticsNamespace(client: RouteCaller) {
  return {
    /** The caller's tenant and environment (scope analytics:read); `from`/`to` cover whole UTC days. */
    get: (query?: RouteQuery<typeof AN.tenant>, options?: RequestOptions) => client.call(AN.tenant, { query }, options),
    /** System surface (X-System-Key): every tenant of one environment, with the platform commission earned. */
    acrossTenants: (query?: RouteQuery<typeof AN.system>, options?: RequestOptions) => client.call(AN.system, { query }, options),
  };
}

/** The event log: every state change of money and of what holds it, kept at least 30 days (scope events:read). */
function eventsNamespace(client: RouteCaller) {
  return {
    list: (query?: RouteQuery<typeof EV.list>, options?: RequestOptions) => client.call(EV.list, { query }, options),
    get: (id: string, options?: RequestOptions) => client.call(EV.get, { params: { id } }, options),
  };
}

/** Where events are delivered, signed (Standard Webhooks): endpoints, their deliveries and replays (scope webhooks:manage). */
function webhookEndpointsNamespace(client: RouteCaller) {
  return {
    create: (body: RouteBody<typeof WH.create>, options?: RequestOptions) => client.call(WH.create, { body }, options),
    list: (query?: RouteQuery<typeof WH.list>, options?: RequestOptions) => client.call(WH.list, { query }, options),
    get: (id: string, options?: RequestOptions) => client.call(WH.get, { params: { id } }, options),
    update: (id: string, body: RouteBody<typeof WH.update>, options?: RequestOptions) =>
      client.call(WH.update, { params: { id }, body }, options),
    delete: (id: string, options?: RequestOptions) => client.call(WH.delete, { params: { id } }, options),
    rotateSecret: (id: string, body: RouteBody<typeof WH.rotateSecret> = {}, options?: RequestOptions) =>
      client.call(WH.rotateSecret, { params: { id }, body }, options),
    sendTest: (id: string, options?: RequestOptions) => client.call(WH.sendTest, { params: { id } }, options),
    deliveries: (id: string, query?: RouteQuery<typeof WH.deliveries>, options?: RequestOptions) =>
      client.call(WH.deliveries, { params: { id }, query }, options),
    replay: (id: string, body: RouteBody<typeof WH.replay>, options?: RequestOptions) =>
      client.call(WH.replay, { params: { id }, body }, options),
  };
}

export function buildNamespaces(client: RouteCaller) {
  return {
    system: systemNamespace(client),
    journal: journalNamespace(client),
    ledger: ledgerNamespace(client),
    auditEvents: auditEventsNamespace(client),
    apiKeys: apiKeysNamespace(client),
    team: teamNamespace(client),
    auth: authNamespace(client),
    momoProviders: momoProvidersNamespace(client),
    requestLogs: requestLogsNamespace(client),
    wallets: walletsNamespace(client),
    transfers: transfersNamespace(client),
    payouts: payoutsNamespace(client),
    treasury: treasuryNamespace(client),
    deposits: depositsNamespace(client),
    fees: feesNamespace(client),
    reconciliation: reconciliationNamespace(client),
    analytics: analyticsNamespace(client),
    events: eventsNamespace(client),
    webhookEndpoints: webhookEndpointsNamespace(client),
    exports: exportsNamespace(client),
  };
}

export type Namespaces = ReturnType<typeof buildNamespaces>;
