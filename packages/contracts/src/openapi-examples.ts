/**
 * Examples of the money routes in the OpenAPI document, by operationId: what a client sends and
 * what each 2xx answer holds. Amounts are decimal strings at the currency's scale, as answers
 * always show them (a request may also send a JSON number). test/openapi checks each against its
 * route's schemas.
 */
export interface RouteExamples {
  request?: Record<string, unknown>;
  /** By status: the route's success, and its other answers (`alsoAnswers`). */
  responses: Partial<Record<200 | 201 | 202, Record<string, unknown>>>;
}

const TENANT = 'tn_01JD3M1Z5G8H2K4N6P8R0T2V4X';
const SENDER = 'wl_01JD3M7Q8X2V9K4T6R5N1B0C7A';
const RECEIVER = 'wl_01JD3M9F4H6J8K0M2P4R6T8V0W';
const MAKER = 'usr_01JD3N2A4C6E8G0J2L4N6Q8S0U';
const CHECKER = 'usr_01JD3N3B5D7F9H1K3M5P7R9T1V';
const CREATED_AT = '2026-11-30T09:15:00.000Z';
const DECIDED_AT = '2026-11-30T09:42:10.000Z';

const wallet = {
  id: SENDER,
  tenantId: TENANT,
  environment: 'live',
  ownerType: 'user',
  ownerId: 'customer-1042',
  currencyCode: 'KES',
  balance: '0.00',
  status: 'active',
  createdAt: CREATED_AT,
};

const transfer = {
  id: 'tx_01JD3P0C2E4G6J8L0N2Q4S6U8W',
  fromWalletId: SENDER,
  toWalletId: RECEIVER,
  amount: '1500.00',
  currencyCode: 'KES',
  fee: '15.00',
  status: 'completed',
  journalEntryId: 'je_01JD3P0D3F5H7K9M1P3R5T7V9X',
  failureCode: null,
  description: 'Invoice 2026-118',
  createdAt: CREATED_AT,
};

const reversal = {
  id: 'trv_01JD3Q1E3G5J7L9N1Q3S5U7W9Y',
  transferId: transfer.id,
  amount: '500.00',
  currencyCode: 'KES',
  feeRefunded: '15.00',
  reason: 'Goods returned',
  status: 'completed',
  journalEntryId: 'je_01JD3Q1F4H6K8M0P2R4T6V8X0Z',
  failureCode: null,
  createdAt: CREATED_AT,
};

const momoDestination = { phoneNumber: '+254700000001', network: 'safaricom' };

/** A case as its maker left it: the hold posted, no decision yet. */
const caseRequested = {
  requestedBy: MAKER,
  status: 'pending',
  holdJournalEntryId: 'je_01JD3R2G5J7L9N1Q3S5U7W9Y1A',
  failureCode: null,
  approvalsRequired: 1,
  approverRole: null,
  approvals: [],
  decidedBy: null,
  decidedAt: null,
  rejectionReason: null,
  decisionJournalEntryId: null,
  awaitingLedger: false,
};
const caseAwaitingHold = { ...caseRequested, holdJournalEntryId: null, awaitingLedger: true };
const caseDecided = (status: 'approved' | 'rejected', posted: boolean) => ({
  ...caseRequested,
  status,
  approvals: status === 'approved' ? [{ actorId: CHECKER, approvedAt: DECIDED_AT }] : [],
  decidedBy: CHECKER,
  decidedAt: DECIDED_AT,
  rejectionReason: status === 'rejected' ? 'Destination not verified' : null,
  decisionJournalEntryId: posted ? 'je_01JD3R3H6K8M0P2R4T6V8X0Z2B' : null,
  awaitingLedger: !posted,
});

const payoutCase = {
  id: 'pc_01JD3R2F4H6K8M0P2R4T6V8X0Z',
  walletId: SENDER,
  amount: '2500.00',
  currencyCode: 'KES',
  fee: '25.00',
  payoutMethod: 'momo',
  destination: momoDestination,
  narration: 'Supplier payment',
  railReference: null,
  railFailureReason: null,
  outcomeJournalEntryId: null,
  createdAt: CREATED_AT,
};

const withdrawal = {
  id: 'pc_01JD3S4K6M8P0R2T4V6X8Z0B2D',
  source: 'tenant_fees',
  amount: '12000.00',
  currencyCode: 'KES',
  payoutMethod: 'bank',
  destination: { bankCode: 'equity', accountNumber: '0170291234567', accountName: 'Acme Payments Ltd' },
  narration: 'Monthly fee sweep',
  railReference: null,
  railFailureReason: null,
  outcomeJournalEntryId: null,
  createdAt: CREATED_AT,
};

const floatDepositRequest = {
  amount: '100000.00',
  currencyCode: 'KES',
  rail: 'bank',
  externalReference: 'EQ-TRX-88213',
  depositedBy: MAKER,
  note: 'Float top-up',
};
const floatDeposit = {
  id: 'fd_01JD3T5M7P9R1T3V5X7Z9B1D3F',
  ...floatDepositRequest,
  status: 'completed',
  journalEntryId: 'je_01JD3T5N8Q0S2U4W6Y8A0C2E4G',
  failureCode: null,
  createdAt: CREATED_AT,
};

const deposit = {
  id: 'dep_01JD3V6P8R0T2V4X6Z8B0D2F4H',
  tenantId: TENANT,
  environment: 'live',
  walletId: SENDER,
  amount: '1000.00',
  currencyCode: 'KES',
  fee: '10.00',
  source: 'momo',
  externalRef: 'QK81H2ZP4D',
  status: 'completed',
  rejectionReason: null,
  journalEntryId: 'je_01JD3V6Q9S1U3W5Y7A9C1E3G5J',
  awaitingLedger: false,
  providerCode: 'mpesa',
  phoneNumber: '+254700000001',
  bankCode: null,
  slipReference: null,
  depositedAt: null,
  depositorName: null,
  verifiedBy: null,
  verifiedAt: null,
  createdAt: CREATED_AT,
};

const bankSlip = {
  ...deposit,
  id: 'dep_01JD3W7R9T1V3X5Z7B9D1F3H5K',
  amount: '5000.00',
  fee: '0.00',
  source: 'bank_slip',
  externalRef: 'SLIP-20261130-0042',
  status: 'pending',
  journalEntryId: null,
  providerCode: null,
  phoneNumber: null,
  bankCode: 'equity',
  slipReference: 'SLIP-20261130-0042',
  depositedAt: '2026-11-30T08:00:00.000Z',
  depositorName: 'Amina Wanjiru',
};
const bankSlipVerified = (posted: boolean) => ({
  ...bankSlip,
  status: 'completed',
  journalEntryId: posted ? 'je_01JD3W7S0U2W4Y6A8C0E2G4J6L' : null,
  awaitingLedger: !posted,
  verifiedBy: CHECKER,
  verifiedAt: DECIDED_AT,
});

const payoutRequest = {
  walletId: SENDER,
  amount: '2500.00',
  currencyCode: 'KES',
  requestedBy: MAKER,
  narration: 'Supplier payment',
  payoutMethod: 'momo',
  destination: momoDestination,
};
const withdrawalRequest = {
  source: 'tenant_fees',
  amount: '12000.00',
  currencyCode: 'KES',
  requestedBy: MAKER,
  narration: 'Monthly fee sweep',
  payoutMethod: 'bank',
  destination: withdrawal.destination,
};
const approval = { actorId: CHECKER };
const rejection = { actorId: CHECKER, reason: 'Destination not verified' };

/** A maker-checker case type's examples (`payouts`): the maker's request, then the checker's two decisions. */
function caseExamples(namespace: string, shown: Record<string, unknown>, request: Record<string, unknown>): Record<string, RouteExamples> {
  const decided = (status: 'approved' | 'rejected', posted: boolean) => ({ ...shown, ...caseDecided(status, posted) });
  return {
    [`${namespace}.create`]: { request, responses: { 201: { ...shown, ...caseRequested }, 202: { ...shown, ...caseAwaitingHold } } },
    [`${namespace}.approve`]: { request: approval, responses: { 200: decided('approved', true), 202: decided('approved', false) } },
    [`${namespace}.reject`]: { request: rejection, responses: { 200: decided('rejected', true), 202: decided('rejected', false) } },
  };
}

export const ROUTE_EXAMPLES: Readonly<Record<string, RouteExamples>> = {
  'wallets.create': {
    request: { ownerType: 'user', ownerId: 'customer-1042', currencyCode: 'KES' },
    responses: { 201: wallet },
  },
  'transfers.create': {
    request: { fromWalletId: SENDER, toWalletId: RECEIVER, amount: '1500.00', currencyCode: 'KES', description: 'Invoice 2026-118' },
    responses: { 201: transfer, 202: { ...transfer, status: 'pending', journalEntryId: null } },
  },
  'transfers.reverse': {
    request: { amount: '500.00', reason: 'Goods returned', refundFee: true },
    responses: { 201: reversal, 202: { ...reversal, status: 'pending', journalEntryId: null, awaitingLedger: true } },
  },
  ...caseExamples('payouts', payoutCase, payoutRequest),
  ...caseExamples('treasury.withdrawals', withdrawal, withdrawalRequest),
  'treasury.floatDeposits.create': {
    request: floatDepositRequest,
    responses: { 201: floatDeposit, 202: { ...floatDeposit, status: 'pending', journalEntryId: null } },
  },
  'deposits.momoWebhook': {
    request: {
      transactionId: 'QK81H2ZP4D',
      phoneNumber: '+254700000001',
      amount: '1000.00',
      currencyCode: 'KES',
      walletId: SENDER,
      signature: '3f6c1d0e9b8a7f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a291807f6e',
      timestamp: '2026-11-30T12:15:00+03:00',
      providerCode: 'mpesa',
    },
    responses: { 201: deposit, 200: deposit, 202: { ...deposit, journalEntryId: null, awaitingLedger: true } },
  },
  'deposits.submitBankSlip': {
    request: {
      walletId: SENDER,
      amount: '5000.00',
      currencyCode: 'KES',
      bankCode: 'equity',
      slipReference: 'SLIP-20261130-0042',
      depositedAt: '2026-11-30T11:00:00+03:00',
      depositorName: 'Amina Wanjiru',
    },
    responses: { 201: bankSlip },
  },
  'deposits.verify': {
    request: approval,
    responses: { 200: bankSlipVerified(true), 202: bankSlipVerified(false) },
  },
  'fees.quote': {
    responses: {
      200: {
        transactionType: 'transfer',
        currencyCode: 'KES',
        amount: '1500.00',
        fee: '15.00',
        scheduleId: 'fs_01JD3X8T0V2X4Z6B8D0F2H4K6M',
        ruleId: 'fr_01JD3X8V1W3Y5A7C9E1G3J5L7N',
      },
    },
  },
};
